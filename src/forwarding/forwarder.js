'use strict'

// Forwards stored statements to upstream LRSs (upstreams.js: LRS_FORWARD_URLS
// and each store's own). Every stored statement has an outbox entry per
// upstream it goes to (written with it, see storeBatch), and a loop per
// upstream, in the background of each worker, reads statements back, POSTs
// them in batches (keeping their ids, so a retry is idempotent) and removes
// what was delivered. Loops start and stop as stores' upstreams are set.
//
// What an upstream answers decides an entry's fate:
//   2xx                        delivered: removed
//   408, 429, 5xx, no answer   retried with capped exponential backoff
//   409                        resolved per statement: each is sent alone;
//                              one the upstream still refuses becomes a
//                              dead letter, the rest are delivered
//   any other 4xx              the batch becomes dead letters, listed and
//                              replayed through /admin/forwarding
// A failing upstream never holds up ingest or the other upstreams.

const crypto = require('node:crypto')
const { withStored } = require('../resources/statements/statement-record')
const { webhookHeaders } = require('./webhook-signature')
const { deliveryNotes, circuitWaitMs } = require('./delivery-state')
const { oauthTokens } = require('./oauth-token')
const { BoundedMap } = require('../lib/bounded-map')

const BATCH = 100
const IDLE_MS = 500
// A delivery of less than half a batch waits this long before the next:
// a loop that went round as soon as it had sent posted ~47 statements at
// a time at 1,650 statements/s, each round a lease, a read, a POST and a
// removal, for each upstream. A tenth of a second fills the batches.
const LINGER_MS = 100
const BACKOFF_START_MS = 500
const BACKOFF_MAX_MS = 60000
// An entry whose statement is not stored this long after it was queued
// belongs to a request that failed (409) or died before its write: dropped.
const ORPHAN_AGE_MS = 5 * 60 * 1000
const RETRYABLE = new Set([408, 429])
// How often the set of upstreams is compared with the loops running.
const SUPERVISE_MS = 1000

// Statements read for one upstream, kept for the others: three upstreams
// read the same statements within seconds of each other, and the reads
// (and their bodies' unpacking) were most of what forwarding cost a worker
// (3 upstreams at 1,650 statements/s: 0.42 of a core). About 2 KB each.
const SHARED_READS = 5000

// A Retry-After is honoured up to this long (a target asking for a day is
// asked again within the hour).
const RETRY_AFTER_MAX_MS = 3600 * 1000

class RetryLater extends Error {
  constructor (message, { cause, retryAfterMs = 0 } = {}) {
    super(message, cause ? { cause } : undefined)
    this.retryAfterMs = retryAfterMs
  }
}

// Retry-After as seconds or an HTTP date -> ms from now (0: none).
function retryAfterMs (value) {
  if (!value) return 0
  const ms = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now()
  return Number.isFinite(ms) && ms > 0 ? Math.min(ms, RETRY_AFTER_MAX_MS) : 0
}

// The X-Experience-API-Version a statement is sent with (a batch holds one
// version): the forwarder's own, else the statement's; a webhook has none.
function versionFor (upstream, row) {
  if (upstream.kind === 'webhook') return 'any'
  if (upstream.xapiVersion && upstream.xapiVersion !== 'as stored') return upstream.xapiVersion
  if (row.storedVersion === undefined) row.storedVersion = storedVersion(row.body) // kept with the shared read
  return row.storedVersion
}

// The version a statement was stored with, as an upstream LRS is told it
// (read once per statement: parsing its body was a cost of its own).
const storedVersion = (body) => String(JSON.parse(body).version).startsWith('2.') ? '2.0.0' : '1.0.3'

// `hosts`: where forwarders may not send (target-hosts.js), checked before
// each delivery of a forwarder (not of LRS_FORWARD_URLS, the operator's).
function createForwarder ({ upstreams, timeoutMs, outbox, statements, logger, hosts = { problem: async () => null } }) {
  const leaseMs = 2 * timeoutMs
  const notes = deliveryNotes(outbox, logger)
  const tokens = oauthTokens({ timeoutMs, hosts })
  const recent = new BoundedMap(SHARED_READS) // statement id -> { row, text }
  let stopped = false
  const loops = new Map() // upstream id -> { upstream, gone, done }

  // An LRS gets the statements as an array (xAPI POST /statements); a
  // webhook a Standard Webhooks payload, signed, whose webhook-id is the
  // same for the same statements (a retry, another worker's after a lease
  // ran out): the receiver's idempotency key.
  function request (upstream, version, texts, ids, authorization) {
    const statementsJson = '[' + texts.join(',') + ']'
    if (upstream.kind !== 'webhook') {
      return { body: statementsJson, headers: { 'Content-Type': 'application/json', 'X-Experience-API-Version': version, ...(authorization && { Authorization: authorization }) } }
    }
    const id = 'msg_' + crypto.createHash('sha256').update(upstream.id + ' ' + ids.join(' ')).digest('base64url').slice(0, 32)
    const body = `{"type":"xapi.statements","timestamp":"${new Date().toISOString()}","data":{"statements":${statementsJson}}}`
    return { body, headers: { 'Content-Type': 'application/json', ...webhookHeaders({ id, secrets: upstream.secrets, body }) } }
  }

  async function send (upstream, version, texts, ids) {
    let authorization = upstream.auth
    if (upstream.oauth) {
      authorization = await tokens.authorization(upstream).catch((err) => {
        throw new RetryLater(err.message, { cause: err.cause })
      })
    }
    const { body, headers } = request(upstream, version, texts, ids, authorization)
    let res
    try {
      res = await fetch(upstream.endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' })
    } catch (err) {
      throw new RetryLater('upstream unreachable', { cause: err }) // fetch keeps the reason (ECONNREFUSED, a timeout) in its cause
    }
    const text = await res.text() // always consume the body so the connection is reused
    if (res.ok) return null
    // a token refused before it expired (revoked): another, at the next try
    if (res.status === 401 && upstream.oauth) {
      tokens.forget(upstream)
      throw new RetryLater('upstream refused the OAuth token (401)')
    }
    if (RETRYABLE.has(res.status) || res.status >= 500) throw new RetryLater(`upstream answered ${res.status}`, { retryAfterMs: retryAfterMs(res.headers.get('retry-after')) })
    return { status: res.status, reason: text.slice(0, 300) }
  }

  // Sends one version's entries; returns the entries refused for good, with why.
  async function deliverGroup (upstream, version, group) {
    const refused = await send(upstream, version, group.map((g) => g.text), group.map((g) => g.entry.statementId))
    if (!refused) return []
    if (refused.status !== 409 || group.length === 1) return [{ entries: group.map((g) => g.entry), ...refused }]
    const out = []
    for (const one of group) out.push(...await deliverGroup(upstream, version, [one]))
    return out
  }

  // Removes delivered entries; those whose removal the database did not
  // take (down, or too slow to answer) are owed: removed before the next
  // lease, while their lease still holds. Left in the outbox, they ran out
  // their lease and another worker sent them again (on an overloaded
  // FerretDB, thousands of duplicates where a batch was the bound).
  async function removeDelivered (ids, owed) {
    try {
      await outbox.remove(ids)
    } catch (err) {
      for (const id of ids) owed.add(id)
      throw err
    }
  }

  async function payOwed (owed) {
    if (!owed.size) return
    const ids = [...owed]
    await outbox.hold(ids, { ms: leaseMs }).catch(() => {})
    await outbox.remove(ids)
    for (const id of ids) owed.delete(id)
  }

  // id -> { ...row, text } of the stored ones; from what another upstream's
  // loop read when there are several (a statement never changes once
  // stored; one erased meanwhile is only sent if it was read before).
  async function readStatements (ids) {
    const shared = loops.size > 1
    const found = new Map()
    const missing = []
    for (const id of ids) {
      const hit = shared && recent.get(id)
      if (hit) found.set(id, hit)
      else missing.push(id)
    }
    if (missing.length) {
      for (const [id, row] of await statements.findBodies(missing)) {
        const read = { ...row, text: withStored(row) }
        found.set(id, read)
        if (shared) recent.set(id, read)
      }
    }
    return found
  }

  async function deliver (upstream, owed) {
    await payOwed(owed)
    const leaseStarted = Date.now()
    const leased = await outbox.lease(upstream.id, { limit: upstream.batchSize || BATCH, leaseMs })
    if (!leased.length) return 0
    if (upstream.checkHost) {
      const forbidden = await hosts.problem(upstream.endpoint)
      if (forbidden) {
        await outbox.deadLetter(leased, { status: 0, reason: forbidden })
        logger.warn({ upstream: upstream.id, statements: leased.length }, 'forwarder target forbidden (LRS_FORWARD_FORBIDDEN_HOSTS); moved to dead letters')
        await notes.failed(upstream.id, new Error(`target forbidden: ${forbidden}`))
        return leased.length
      }
    }
    // The lease is for the POST's timeout twice over; a slow database may
    // have used much of it before the POST, or use it up after: held anew
    // then, so that no other worker takes the batch while this one still
    // delivers it (the upstream would get it twice).
    let heldAt = Date.now()
    const timings = { leaseMs: heldAt - leaseStarted }
    let outlived = false
    const keep = async () => {
      if (Date.now() - heldAt > leaseMs) outlived = true
      if (Date.now() - heldAt < leaseMs / 3) return
      await outbox.hold(leased.map((e) => e.id), { ms: leaseMs })
      heldAt = Date.now()
    }
    const rows = await readStatements(leased.map((e) => e.statementId))
    timings.readMs = Date.now() - heldAt
    await keep()
    const byVersion = new Map()
    const orphans = []
    const waiting = []
    for (const entry of leased) {
      const row = rows.get(entry.statementId)
      if (!row) {
        (Date.now() - entry.enqueuedAt.getTime() > ORPHAN_AGE_MS ? orphans : waiting).push(entry.id)
        continue
      }
      // queued by a write that found it stored already (a retried request):
      // the write that stored it queued it too (engines that queue before
      // they know what they store mark entries and statements with the
      // write's token)
      if (entry.write && row.write !== entry.write) {
        orphans.push(entry.id)
        continue
      }
      const text = row.text
      const version = versionFor(upstream, row)
      if (!byVersion.has(version)) byVersion.set(version, [])
      byVersion.get(version).push({ entry, text })
    }
    await outbox.remove(orphans)
    await outbox.release(waiting, { delayMs: IDLE_MS })
    const done = []
    const settled = new Set([...orphans, ...waiting])
    // the leased entries neither delivered nor settled above
    const undelivered = () => leased.filter((e) => !settled.has(e.id) && !done.includes(e.id))
    try {
      // a lease is of whole outbox documents (the mongodb engine's hold a
      // write batch each) and may hold more than one POST
      const size = upstream.batchSize || BATCH
      let lost = false
      for (const [version, all] of byVersion) {
        for (let i = 0; i < all.length && !lost; i += size) {
          const group = all.slice(i, i + size)
          // a lease lost to a slow database (another worker may hold the
          // batch now) is not delivered on: its rest is that worker's
          await keep()
          lost = !outbox.stillHeld(group.map((g) => g.entry.id), { ms: timeoutMs })
          if (lost) break
          const refused = await deliverGroup(upstream, version, group)
          const dead = new Set()
          for (const r of refused) {
            await outbox.deadLetter(r.entries, { status: r.status, reason: r.reason })
            for (const e of r.entries) dead.add(e.id)
            logger.warn({ upstream: upstream.id, status: r.status, statements: r.entries.length }, 'upstream refused statements; moved to dead letters')
          }
          for (const g of group) if (!dead.has(g.entry.id)) done.push(g.entry.id)
        }
        if (lost) break
      }
      if (lost) {
        const rest = undelivered().map((e) => e.id)
        outbox.forget(rest)
        logger.warn({ upstream: upstream.id, statements: rest.length, ...timings, sinceLeaseMs: Date.now() - leaseStarted, leaseMs }, 'forwarding lease lost to a slow database before the batch was sent; left to the worker that holds it')
      }
    } catch (err) {
      await removeDelivered(done, owed).catch(() => {})
      const rest = undelivered()
      // a forwarder that gives up after a while: what waited that long is a dead letter, with the last error
      const giveUpMs = upstream.retry ? upstream.retry.giveUpAfterS * 1000 : 0
      const expired = giveUpMs ? rest.filter((e) => Date.now() - e.enqueuedAt.getTime() > giveUpMs) : []
      if (expired.length) await outbox.deadLetter(expired, { status: 0, reason: `gave up after ${upstream.retry.giveUpAfterS} s: ${err.message}` }).catch(() => {})
      await outbox.release(rest.filter((e) => !expired.includes(e)).map((e) => e.id)).catch(() => {})
      throw err
    }
    // past its lease another worker may have taken the batch and sent it too
    if (Date.now() - heldAt > leaseMs) outlived = true
    if (outlived) logger.warn({ upstream: upstream.id, statements: leased.length, ...timings, sinceLeaseMs: Date.now() - leaseStarted, leaseMs }, 'a forwarded batch outlived its lease (a slow database); another worker may send it again')
    await removeDelivered(done, owed)
    if (done.length) await notes.delivered(upstream.id, done.length)
    return leased.length
  }

  // Capped exponential backoff with jitter (a target coming back is not
  // met by every worker of every host at once), or the target's
  // Retry-After when that is later. Once a target has failed for as long
  // as the cap, the circuit opens (delivery-state.js): one try per cap
  // from all workers and hosts together, until one gets through.
  async function loop (upstream, running) {
    const first = upstream.retry ? upstream.retry.initialBackoffMs : BACKOFF_START_MS
    const cap = upstream.retry ? upstream.retry.maxBackoffMs : BACKOFF_MAX_MS
    let backoff = 0
    const owed = new Set() // entry ids delivered, not yet removed
    while (!stopped && !running.gone) {
      // changed (its secrets, target, filter) or gone: a loop of its new
      // self takes over at once, not at the next supervision
      if (changed(upstream)) {
        supervise()
        break
      }
      if (upstream.problem) {
        logger.warn({ upstream: upstream.id, problem: upstream.problem }, 'forwarder cannot deliver')
        await notes.failed(upstream.id, new Error(upstream.problem))
        await sleep(cap)
        continue
      }
      // failing: is the circuit open (every worker's tries, from the record)?
      if (backoff) {
        const state = await outbox.deliveryState(upstream.id).catch(() => null)
        const hold = circuitWaitMs(state, { probeMs: cap })
        if (hold) {
          // spread, so that one worker probes and the others see how it went
          await sleep(hold + Math.random() * cap / 4)
          continue
        }
      }
      let sent = 0
      let wait = 0
      try {
        sent = await deliver(upstream, owed)
        backoff = 0
      } catch (err) {
        backoff = Math.min(backoff ? backoff * 2 : first, cap)
        wait = Math.max(backoff / 2 + Math.random() * backoff / 2, err.retryAfterMs || 0)
        logger.warn({ upstream: upstream.id, err, retryInMs: Math.round(wait) }, 'forwarding failed')
        await notes.failed(upstream.id, err)
      }
      if (!sent && !wait) await notes.idle(upstream.id)
      if (!sent || wait) await sleep(wait || IDLE_MS)
      else if (sent < (upstream.batchSize || BATCH) / 2) await sleep(LINGER_MS)
    }
    await payOwed(owed).catch(() => {})
  }

  let sleeping = new Set()
  function sleep (ms) {
    return new Promise((resolve) => {
      const t = setTimeout(() => { sleeping.delete(wake); resolve() }, ms)
      const wake = () => { clearTimeout(t); resolve() }
      sleeping.add(wake)
    })
  }

  // Whether `current` (the upstream as now configured, or undefined: gone)
  // is no longer what a loop was started for.
  const differs = (current, upstream) => !current || current.auth !== upstream.auth || current.fingerprint !== upstream.fingerprint
  const changed = (upstream) => differs(upstreams.all().find((u) => u.id === upstream.id), upstream)

  // One loop per current upstream; one whose upstream was removed (or
  // changed its credentials: same id, another Authorization) ends.
  function supervise () {
    const now = new Map(upstreams.all().map((u) => [u.id, u]))
    for (const [id, running] of loops) {
      if (differs(now.get(id), running.upstream)) {
        running.gone = true
        loops.delete(id)
        ended.add(running.done)
        running.done.finally(() => ended.delete(running.done))
      }
    }
    for (const [id, upstream] of now) {
      if (loops.has(id)) continue
      const running = { upstream, gone: false }
      running.done = loop(upstream, running)
      loops.set(id, running)
    }
  }

  let timer = null
  const ended = new Set() // loops told to end, until they have
  return {
    start () {
      supervise()
      timer = setInterval(supervise, SUPERVISE_MS)
      timer.unref()
    },
    async stop () {
      stopped = true
      clearInterval(timer)
      for (const wake of sleeping) wake()
      sleeping = new Set()
      await Promise.allSettled([...loops.values()].map((r) => r.done).concat([...ended]))
      await notes.flush()
    }
  }
}

module.exports = { createForwarder }
