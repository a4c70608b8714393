'use strict'

// Verifies HTTP Basic credentials without a database read per request and
// without letting wrong secrets cost much, or lock valid clients out:
// - credentials are held in memory; the collection is re-read when its
//   change counter moves (polled every LRS_CREDENTIAL_POLL_MS: one small
//   read, so a revoked or changed credential stops working on every worker
//   within a second), every LRS_CREDENTIAL_REFRESH_S in any case, and when a
//   request names an unknown key (the request waits for that read; such
//   reads are shared and at most four a second), so a new credential works
//   on its first use;
// - a verified Authorization header is remembered (by its digest), so
//   scrypt runs once per credential per worker, not once per request (and
//   concurrent first requests with the same header share one run);
// - a failed (key, secret) pair is remembered too, and answered without
//   scrypt the next time;
// - scrypt runs on the thread pool, one verification at a time per worker,
//   with a short queue; beyond it requests get 429. Verifications from an
//   address that has no failures go first: a valid client's first request
//   does not wait behind a flood of wrong secrets;
// - more than LRS_AUTH_MAX_FAILURES failures within LRS_AUTH_FAILURE_WINDOW_S
//   from one client address get 429 with Retry-After until the window ends
//   (per worker). Past the limit for one key, only addresses without
//   failures may still try it: a valid client elsewhere keeps its way in,
//   and a brute force spread over many addresses gets one guess per
//   address. Verifications in flight count towards the limits: with
//   failures counted only once scrypt had finished, 40 concurrent wrong
//   secrets all queued their 60 ms scrypt (2.4 s of queue, a valid
//   client's verification behind it) before the first one counted.
// - a header verified on this worker, or on any worker of this host
//   (shared-verifications.js), is never limited: its client proved it holds
//   the secret. Before, one worker's memory was unknown to the next, and a
//   flood of wrong secrets for a key from the client's own address (a NAT)
//   got the valid client 429s on every other worker for as long as the
//   flood lasted, and a window after.
// - the time a credential was last used is written at its first use on a
//   worker and then at most once a minute per key per worker (USE_NOTE_MS):
//   "last used" in the admin API is right to within a minute, and a busy
//   client costs a write a minute, not one per request. The write is not
//   waited for; one that fails is logged and the request goes on.

const { errors } = require('../errors')
const { DEFAULT_STORE } = require('../stores/store-keys')
const { hashSecret, verifySecret } = require('./secrets')
const { BoundedMap } = require('../lib/bounded-map')
const { createSharedVerifications } = require('./shared-verifications')

const MISS_REFRESH_MIN_MS = 250
const MAX_REMEMBERED = 10000
const MAX_QUEUED_VERIFICATIONS = 64
const USE_NOTE_MS = 60000

// Tests only: `hooks.secretQueued(key)`, called when a secret of `key`
// joins the verification queue; `hooks.secretChecked(key)`, awaited after
// each secret's check and before its answer is used.
function createCredentialStore ({ config, storage, logger, hooks = {} }) {
  const repo = storage.credentials
  const byKey = new Map()
  const shared = createSharedVerifications({ dataDir: config.dataDir, key: config.authShareKey, logger })
  const verified = new BoundedMap(MAX_REMEMBERED) // digest(header) -> credential
  const failed = new BoundedMap(MAX_REMEMBERED) // digest(header) -> key
  const failures = new BoundedMap(MAX_REMEMBERED) // "key:<k>" | "addr:<a>" -> { count, until }
  const pending = new Map() // digest(header) -> verification in progress
  const attempts = new Map() // "key:<k>" | "addr:<a>" -> verifications in flight
  const usesNoted = new BoundedMap(MAX_REMEMBERED) // key -> when this worker last wrote its use
  let timer = null
  let pollTimer = null
  let mark = null
  let lastRefresh = 0
  let refreshing = null
  const clean = [] // verifications waiting whose key and address had no failures
  const suspect = [] // the others
  let running = false
  let generation = 0 // moves whenever the credentials or the stores may have changed (bearer-tokens.js)

  if (config.adminUser) {
    byKey.set(config.adminUser, { key: config.adminUser, secretHash: hashSecret(config.adminPassword), scopes: ['all', 'admin', 'stores/admin'], store: DEFAULT_STORE })
  }

  // What was remembered of one key's headers, when that key changed or
  // went: the other keys' clients keep their verified headers (clearing
  // everything sent them all back to scrypt and, from an address that had
  // failures, into 429s).
  function forgetVerifications (key) {
    for (const [digest, credential] of verified) if (credential.key === key) verified.delete(digest)
    for (const [digest, failedKey] of failed) if (failedKey === key) failed.delete(digest)
  }

  // Concurrent callers share one read; `minGapMs` after the previous one.
  function refresh ({ minGapMs = 0 } = {}) {
    if (!refreshing) {
      const wait = Math.max(0, lastRefresh + minGapMs - Date.now())
      refreshing = new Promise((resolve) => setTimeout(resolve, wait)).then(readCredentials).finally(() => { refreshing = null })
    }
    return refreshing
  }

  async function readCredentials () {
    lastRefresh = Date.now()
    const rows = await repo.all()
    const seen = new Set()
    for (const row of rows) {
      seen.add(row.key)
      const current = byKey.get(row.key)
      if (!current || current.secretHash !== row.secretHash || String(current.scopes) !== String(row.scopes) || current.store !== row.store) {
        byKey.set(row.key, row)
        forgetVerifications(row.key)
      }
    }
    for (const key of byKey.keys()) {
      if (!seen.has(key) && key !== config.adminUser) { byKey.delete(key); forgetVerifications(key) }
    }
  }

  function refreshLogged () {
    refresh().catch((err) => logger.warn({ err }, 'credential refresh failed'))
  }

  async function start () {
    await shared.start()
    await storage.ready
    try {
      if (config.adminUser) await repo.upsert(byKey.get(config.adminUser))
      mark = await repo.changeMark()
      await refresh()
    } catch (err) {
      logger.warn({ err }, 'credential refresh failed')
    }
    timer = setInterval(refreshLogged, config.credentialRefreshS * 1000)
    timer.unref()
    pollTimer = setInterval(pollLogged, config.credentialPollMs)
    pollTimer.unref()
  }

  let polling = false
  async function poll () {
    if (polling) return
    polling = true
    try {
      const now = await repo.changeMark()
      if (mark !== null && now !== mark) {
        generation++
        await refresh()
      }
      mark = now
    } finally {
      polling = false
    }
  }

  function pollLogged () {
    poll().catch((err) => logger.warn({ err }, 'credential change check failed'))
  }

  // Seconds until the failure window of `name` (a key or an address) ends,
  // or 0. Verifications in flight count as failures until they end (1 s
  // then: they end within that).
  function limitedFor (name, now) {
    const f = failures.get(name)
    const failed = f && f.until > now ? f.count : 0
    if (failed >= config.authMaxFailures) return Math.ceil((f.until - now) / 1000)
    if (failed + (attempts.get(name) || 0) >= config.authMaxFailures) return 1
    return 0
  }

  // No failure and no verification in flight from the address.
  function isClean (address, now) {
    const f = failures.get(address)
    return !attempts.has(address) && !(f && f.until > now && f.count > 0)
  }

  // Seconds the client must wait before this header is tried, or 0.
  function blockedFor ([address, key], now) {
    const byAddress = limitedFor(address, now)
    if (byAddress) return byAddress
    return isClean(address, now) ? 0 : limitedFor(key, now)
  }

  function recordFailure (names, now) {
    for (const name of names) {
      const f = failures.get(name)
      if (f && f.until > now) f.count++
      else failures.set(name, { count: 1, until: now + config.authFailureWindowS * 1000 })
    }
  }

  function countAttempt (names, delta) {
    for (const name of names) {
      const n = (attempts.get(name) || 0) + delta
      if (n > 0) attempts.set(name, n)
      else attempts.delete(name)
    }
  }

  // One scrypt at a time: a flood of wrong secrets then costs at most one
  // thread-pool thread per worker, and the event loop none. `proven`
  // headers (verified by another worker) go before every other.
  function verifyQueued (secret, hash, { first, proven }) {
    const queue = first || proven ? clean : suspect
    if (queue.length >= MAX_QUEUED_VERIFICATIONS) {
      throw errors.TooManyRequests('too many credentials are being verified; retry shortly', { headers: { 'Retry-After': '1' } })
    }
    return new Promise((resolve, reject) => {
      const job = () => verifySecret(secret, hash).then(resolve, reject)
      if (proven) queue.unshift(job)
      else queue.push(job)
      if (!running) runQueued()
    })
  }

  async function runQueued () {
    running = true
    try {
      for (let job = clean.shift() || suspect.shift(); job; job = clean.shift() || suspect.shift()) await job()
    } finally {
      running = false
    }
  }

  function noteUse (key) {
    const now = Date.now()
    if (now - (usesNoted.get(key) ?? -Infinity) < USE_NOTE_MS) return
    usesNoted.set(key, now)
    repo.recordUse(key, now).catch((err) => logger.warn({ err, key }, 'could not record when a credential was last used'))
  }

  // The credential for an Authorization header value, or null. Throws
  // TooManyRequests while the key or the client address is over its
  // failure limit.
  async function authenticate (header, address) {
    const credential = await credentialOf(header, address)
    if (credential) noteUse(credential.key)
    return credential
  }

  async function credentialOf (header, address) {
    if (typeof header !== 'string' || !/^basic /i.test(header)) return null
    const digest = shared.digestOf(header)
    const hit = verified.get(digest)
    if (hit) return hit
    if (pending.has(digest)) return pending.get(digest)
    const check = verify(header, digest, address).finally(() => pending.delete(digest))
    pending.set(digest, check)
    return check
  }

  async function verify (header, digest, address) {
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    const key = colon < 0 ? '' : decoded.slice(0, colon)
    const names = [`addr:${address}`, `key:${key}`]
    const now = Date.now()
    const refuseIfBlocked = () => {
      const wait = blockedFor(names, Date.now())
      if (wait) throw errors.TooManyRequests(`too many failed authentication attempts; retry in ${wait} s`, { headers: { 'Retry-After': String(wait) } })
    }
    let proven = false
    if (blockedFor(names, now) > 0 || !isClean(names[0], now)) proven = await shared.seen(digest)
    // Each await (the look at the shared files, a refresh for a key not
    // known yet) lets other requests through: the limits are read after it,
    // or concurrent first requests all pass before any counts (measured: 16
    // and 26 wrong secrets checked against a limit of 10 per worker).
    if (!proven) refuseIfBlocked()
    let credential = colon < 0 ? undefined : byKey.get(key)
    if (!credential && colon >= 0) {
      try { await refresh({ minGapMs: MISS_REFRESH_MIN_MS }) } catch (err) { logger.warn({ err }, 'credential refresh failed') }
      credential = byKey.get(key)
      if (!proven) refuseIfBlocked()
    }
    const secret = decoded.slice(colon + 1)
    // scrypt pads a short secret with zero bytes, so "s" and "s\0" would
    // both pass: a secret never holds one
    if (!credential || failed.has(digest) || secret.includes('\0')) {
      failed.set(digest, key)
      recordFailure(names, now)
      return null
    }
    const first = isClean(names[0], now)
    countAttempt(names, 1)
    let ok
    try {
      const queued = verifyQueued(secret, credential.secretHash, { first, proven })
      if (hooks.secretQueued) hooks.secretQueued(key)
      ok = await queued
      if (hooks.secretChecked) await hooks.secretChecked(key)
    } finally {
      countAttempt(names, -1)
    }
    // The key changed or went while its secret was checked: a refresh has
    // forgotten what was remembered of it, and this answer, of a secret
    // that no longer stands, would be remembered past it (a new secret
    // refused, or an old or revoked one let in, until the key changed
    // again). It is checked again against what stands now.
    if (byKey.get(key) !== credential) return verify(header, digest, address)
    if (!ok) {
      failed.set(digest, key)
      recordFailure(names, Date.now())
      return null
    }
    verified.set(digest, credential)
    await shared.share(digest)
    return credential
  }

  async function stop () {
    clearInterval(timer)
    clearInterval(pollTimer)
    await shared.stop()
  }

  // How many credentials this worker knows (the bootstrap one included).
  const count = () => byKey.size

  // The credential with this key as this worker knows it now (undefined:
  // none), and the same after a read of the credentials if it knows none
  // (one made moments ago through another worker): what a token the LRS
  // gave (lrs-issuer.js) stands on.
  const current = (key) => byKey.get(key)
  async function lookup (key) {
    if (!byKey.has(key)) await refresh({ minGapMs: MISS_REFRESH_MIN_MS })
    return byKey.get(key)
  }

  return { start, authenticate, stop, count, current, lookup, generation: () => generation }
}

module.exports = { createCredentialStore }
