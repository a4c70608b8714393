'use strict'

// Which Authorization headers the workers of this host have verified, told
// to each other through files: LRS_DATA_DIR/auth/verified-<pid>-<random>.bin, one per
// worker, each a run of 32-byte digests appended as its worker verifies
// headers.
//
// Why: failed authentications are limited per key and per client address,
// per worker. A client whose header one worker had verified met, on the
// next worker PM2 handed its connection to, an address or key over its
// limit because someone else was sending wrong secrets for that key from
// the same address (a NAT) or from anywhere: a flood of wrong secrets
// locked valid clients out. A header another worker has verified is now
// exempt from the limits and checked first. It is still checked (scrypt,
// once per worker): these files grant priority, never access, so a file
// written by someone else lets no one in.
//
// The digests are HMAC-SHA256 with LRS_AUTH_SHARE_KEY, which
// ecosystem.config.js draws at random at each start and hands to every
// worker: a header holds the secret, and a plain fast hash of it on disk
// would let anyone who reads the folder try weak secrets at the speed of
// SHA-256 instead of scrypt. Without that key (a worker started on its own)
// each process draws one and shares with no other.

const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { BoundedMap } = require('../lib/bounded-map')
const { processExists } = require('../lib/process-exists')

const DIGEST_BYTES = 32
const MAX_KNOWN = 50000 // digests remembered from the other workers
const MAX_OWN = 20000 // digests this worker remembers sharing; its file is written again from them past twice as many
const READ_GAP_MS = 20 // between two reads of the other workers' files
const FILE_NAME = /^verified-(\d+)-[0-9a-f]+\.bin$/ // verified-<pid>-<random>.bin

function createSharedVerifications ({ dataDir, key, logger, maxOwn = MAX_OWN }) {
  const dir = path.join(dataDir, 'auth')
  const own = path.join(dir, `verified-${process.pid}-${crypto.randomBytes(4).toString('hex')}.bin`)
  const hmacKey = key ? Buffer.from(key) : crypto.randomBytes(32)
  const mine = new BoundedMap(maxOwn) // what this worker shared (base64 digest -> Buffer)
  const known = new BoundedMap(MAX_KNOWN) // what the others shared
  const files = new Map() // file name -> { ino, offset } of what has been read
  let ownEntries = 0
  let writing = Promise.resolve()
  let broken = false // the folder cannot be written: each worker goes on alone
  let reading = null
  let nextRead = null
  let lastRead = 0

  // The header's digest, base64: what the credential store keys its own
  // memory of headers by too.
  const digestOf = (header) => crypto.createHmac('sha256', hmacKey).update(header).digest('base64')

  async function start () {
    try {
      await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 })
      // files of workers that are gone (killed, or of an earlier start)
      for (const name of await fs.promises.readdir(dir)) {
        const m = FILE_NAME.exec(name)
        if (m && Number(m[1]) !== process.pid && !processExists(Number(m[1]))) await fs.promises.rm(path.join(dir, name), { force: true })
      }
      await fs.promises.writeFile(own, Buffer.alloc(0), { mode: 0o600 })
    } catch (err) {
      fail(err)
    }
  }

  function fail (err) {
    if (!broken) logger.warn({ err, dir }, 'workers cannot share verified credentials; each worker limits failed authentications alone')
    broken = true
  }

  // Appended before the request is answered: once a client has its 200,
  // every other worker that looks finds its header.
  function share (digest) {
    if (broken || mine.has(digest)) return writing
    const bytes = Buffer.from(digest, 'base64')
    mine.set(digest, bytes)
    writing = writing.then(async () => {
      if (ownEntries >= 2 * maxOwn) {
        // written whole and renamed over: a reader sees the new file (its
        // inode changed) and reads it from the start. It then holds at
        // most maxOwn, so the next rewrite is at least maxOwn shares away.
        const tmp = `${own}.${crypto.randomBytes(4).toString('hex')}.tmp`
        await fs.promises.writeFile(tmp, Buffer.concat([...mine.values()]), { mode: 0o600 })
        await fs.promises.rename(tmp, own)
        ownEntries = mine.size
      } else {
        await fs.promises.appendFile(own, bytes)
        ownEntries++
      }
    }).catch(fail)
    return writing
  }

  // Whether another worker of this host has verified the header. Looks at
  // what they wrote up to a read that begins after this call.
  async function seen (digest) {
    if (mine.has(digest) || known.has(digest)) return true
    if (broken) return false
    await freshRead()
    return known.has(digest)
  }

  // One read at a time, at most one waiting, READ_GAP_MS apart: a flood of
  // refused requests costs a read every few ms, not one each.
  function freshRead () {
    if (!nextRead) {
      nextRead = (reading || Promise.resolve())
        .then(() => new Promise((resolve) => setTimeout(resolve, Math.max(0, lastRead + READ_GAP_MS - Date.now()))))
        .then(() => {
          nextRead = null
          lastRead = Date.now()
          reading = readOthers().catch(fail).finally(() => { reading = null })
          return reading
        })
    }
    return nextRead
  }

  async function readOthers () {
    const names = (await fs.promises.readdir(dir)).filter((n) => FILE_NAME.test(n) && path.join(dir, n) !== own)
    for (const name of files.keys()) if (!names.includes(name)) files.delete(name)
    for (const name of names) {
      let handle
      try {
        handle = await fs.promises.open(path.join(dir, name), 'r')
        const st = await handle.stat()
        let state = files.get(name)
        if (!state || state.ino !== st.ino || st.size < state.offset) state = { ino: st.ino, offset: 0 }
        const length = Math.floor((st.size - state.offset) / DIGEST_BYTES) * DIGEST_BYTES
        if (length > 0) {
          const buf = Buffer.alloc(length)
          const { bytesRead } = await handle.read(buf, 0, length, state.offset)
          const whole = bytesRead - (bytesRead % DIGEST_BYTES)
          for (let i = 0; i < whole; i += DIGEST_BYTES) known.set(buf.toString('base64', i, i + DIGEST_BYTES), true)
          state.offset += whole
        }
        files.set(name, state)
      } catch (err) {
        if (err.code !== 'ENOENT') throw err // a worker that stopped meanwhile
      } finally {
        await handle?.close()
      }
    }
  }

  async function stop () {
    await writing
    await fs.promises.rm(own, { force: true }).catch(() => {})
  }

  return { digestOf, start, share, seen, stop }
}

module.exports = { createSharedVerifications }
