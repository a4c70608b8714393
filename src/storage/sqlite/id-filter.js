'use strict'

// The ids in the store, as a Bloom filter in the writer's memory: an id it
// says is not there is not looked up. A statement a client sends with its
// own id is almost always new, and proving an id absent meant a seek in
// every index level (schema.js, ID_TABLES), random pages of the largest:
// 14-26 us at 10 M statements. There, with clients' ids, the writer took 73
// instead of 117 us per statement (docs/benchmarks.md, Scale).
//
// The filter is never wrong the unsafe way, "not there" for an id that is:
// - Every id the writer inserts is added, from the start (write-statements.js,
//   insertRecord), also those of a transaction undone (they only make it
//   say "may be there" more often).
// - The ids stored before are read from the index levels in chunks between
//   transactions, the lowest level first and each in key order. Merges move
//   ids only upwards, into levels not read yet, so every id is met once at
//   least, wherever merges take it meanwhile.
// - Another connection that writes (an import, or the writer threads of
//   LRS_SQLITE_WRITER=thread) changes the file's data_version: the writer
//   checks it in each transaction before any look-up (`began`) and before
//   each chunk it reads, and a change makes the filter useless until it
//   has been read again, later the more often it happens.
// Until it is read whole, every id is looked up, as without it.

const { ID_TABLES } = require('./schema')

const HASHES = 7
// Sized for twice the ids there are at the start; past that the filter is
// read again, larger. At 10 bits an id, 7 hashes say "may be there" for
// about 1 % of the ids that are not.
const BITS_PER_ID = 20
const MIN_BITS = 2 ** 26 // 8 MiB: a new store is read again first at 6.7 M ids
const MAX_BITS = 2 ** 31 // 256 MiB, about 200 M ids at 10 bits; more ids just make it say "may be" more often
const CHUNK_IDS = 2048 // about 1.5 ms of the writer's time at 10 M (2-core VM), after a transaction or while idle
const FIRST_WAIT_MS = 1000 // after another connection wrote, before reading again; doubles each time
const LONGEST_WAIT_MS = 60000

function bitsFor (ids, minBits) {
  let bits = minBits
  while (bits < ids * BITS_PER_ID && bits < MAX_BITS) bits *= 2
  return bits
}

// Two 32-bit hashes of an id's bytes (FNV-1a, and one with murmur's
// multiplier): client ids are UUIDs of any version, not all random. Put in
// `pair`, [h1, h2], to make no garbage.
const pair = new Uint32Array(2)
function hashBytes (bytes) {
  let a = 0x811c9dc5
  let b = 0x9747b28c ^ bytes.length
  for (let i = 0; i < bytes.length; i++) {
    a = Math.imul(a ^ bytes[i], 0x01000193)
    b = Math.imul(b ^ bytes[i], 0x5bd1e995)
    b ^= b >>> 13
  }
  return finish(a, b)
}

// The same of the bytes written in hex in text[from, to) (upper case, as
// SQLite's hex() writes them): the ids of a chunk come as one string, not a
// Buffer each (a third of the time it took to read them).
function hashHex (text, from, to) {
  let a = 0x811c9dc5
  let b = 0x9747b28c ^ ((to - from) >>> 1)
  for (let i = from; i < to; i += 2) {
    const byte = (nibble(text.charCodeAt(i)) << 4) | nibble(text.charCodeAt(i + 1))
    a = Math.imul(a ^ byte, 0x01000193)
    b = Math.imul(b ^ byte, 0x5bd1e995)
    b ^= b >>> 13
  }
  return finish(a, b)
}

const nibble = (code) => code <= 57 ? code - 48 : code - 55 // 0-9, A-F

function finish (a, b) {
  a ^= a >>> 16
  a = Math.imul(a, 0x85ebca6b)
  a ^= a >>> 13
  pair[0] = a
  pair[1] = b | 1
  return pair
}

// `chunkIds`, `minBits`, `now`: tests only.
function idFilter (db, { chunkIds = CHUNK_IDS, minBits = MIN_BITS, now = Date.now } = {}) {
  const dataVersion = db.prepare('PRAGMA data_version').pluck()
  const storedCount = db.prepare('SELECT coalesce(sum(count), 0) FROM hourly_totals').pluck()
  // the next ids of a level after `after`: how many, the last, all in hex
  const chunkOf = ID_TABLES.map((table) => db.prepare(`SELECT count(*) AS n, max(id) AS last, group_concat(hex(id), ',') AS hex
    FROM (SELECT id FROM ${table} WHERE id > ? ORDER BY id LIMIT ${chunkIds})`))
  const FIRST_ID = Buffer.alloc(0)

  let words = null // Int32Array of the bits; null: to be made (again)
  let mask = 0
  let capacity = 0 // ids added past which it is read again, larger
  let added = 0
  let level = 0 // the level being read; ID_TABLES.length: read whole
  let after = FIRST_ID
  let version = dataVersion.get()
  let notBefore = 0 // no new reading before then (another connection wrote)
  let wait = FIRST_WAIT_MS

  function startOver () {
    version = dataVersion.get() // what other connections wrote until now is read with the rest
    const bits = bitsFor(storedCount.get(), minBits)
    words = new Int32Array(bits / 32)
    mask = bits - 1
    capacity = bits < MAX_BITS ? bits / 10 : Infinity
    added = 0
    level = 0
    after = FIRST_ID
  }

  function setBits ([h1, h2]) {
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & mask
      words[bit >>> 5] |= 1 << (bit & 31)
    }
    if (++added > capacity) words = null // read again, larger, after the next transaction
  }

  function add (id) {
    if (words !== null) setBits(hashBytes(id))
  }

  // Whether another connection has written since the last look; if so the
  // filter is dropped and read again after a wait.
  function othersWrote () {
    const v = dataVersion.get()
    if (v === version) return false
    version = v
    words = null
    notBefore = now() + wait
    wait = Math.min(LONGEST_WAIT_MS, wait * 2)
    return true
  }

  return {
    add,
    // false: `id` (as stored, ids.js) is surely not in the store
    mayHave (id) {
      if (words === null || level < ID_TABLES.length) return true
      const [h1, h2] = hashBytes(id)
      for (let i = 0; i < HASHES; i++) {
        const bit = (h1 + Math.imul(i, h2)) & mask
        if ((words[bit >>> 5] & (1 << (bit & 31))) === 0) return false
      }
      return true
    },
    // In each transaction of this writer, before its first look-up.
    began: othersWrote,
    // Between transactions: reads the next chunk of ids, if any is left.
    // Returns whether more is to be read now (false: read whole, or not
    // before a while).
    readSome () {
      if (words === null) {
        if (now() < notBefore) return false
        startOver()
      }
      if (level === ID_TABLES.length) return false
      // a chunk read after another connection wrote would be wasted: the
      // next transaction drops the filter (LRS_SQLITE_WRITER=thread writers
      // would each read it whole whenever idle, to drop it again)
      if (othersWrote()) return false
      let chunk
      try {
        chunk = chunkOf[level].get(after)
      } catch (err) {
        words = null
        notBefore = now() + wait
        throw err
      }
      const { n, last, hex } = chunk
      for (let from = 0; n > 0 && words !== null;) {
        const comma = hex.indexOf(',', from)
        const to = comma < 0 ? hex.length : comma
        setBits(hashHex(hex, from, to))
        if (comma < 0) break
        from = comma + 1
      }
      if (words === null) return true // grew past its size meanwhile: read again, larger
      if (n === chunkIds) {
        after = last
        return true
      }
      level++
      after = FIRST_ID
      if (level < ID_TABLES.length) return true
      wait = FIRST_WAIT_MS
      return false
    },
    ready: () => words !== null && level === ID_TABLES.length
  }
}

module.exports = { idFilter, hashBytes, hashHex }
