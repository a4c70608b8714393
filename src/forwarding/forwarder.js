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

const { withStored } = require('../resources/statements/statement-record')

const BATCH = 100
const IDLE_MS = 500
const BACKOFF_START_MS = 500
const BACKOFF_MAX_MS = 60000
// An entry whose statement is not stored this long after it was queued
// belongs to a request that failed (409) or died before its write: dropped.
const ORPHAN_AGE_MS = 5 * 60 * 1000
const RETRYABLE = new Set([408, 429])
// How often the set of upstreams is compared with the loops running.
const SUPERVISE_MS = 1000

class RetryLater extends Error {}

function createForwarder ({ upstreams, timeoutMs, outbox, statements, logger }) {
  const leaseMs = 2 * timeoutMs
  let stopped = false
  const loops = new Map() // upstream id -> { upstream, gone, done }

  async function send (upstream, version, texts) {
    let res
    try {
      res = await fetch(upstream.endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Experience-API-Version': version, ...(upstream.auth && { Authorization: upstream.auth }) },
        body: '[' + texts.join(',') + ']',
        signal: AbortSignal.timeout(timeoutMs)
      })
    } catch (err) {
      throw new RetryLater('upstream unreachable', { cause: err }) // fetch keeps the reason (ECONNREFUSED, a timeout) in its cause
    }
    const text = await res.text() // always consume the body so the connection is reused
    if (res.ok) return null
    if (RETRYABLE.has(res.status) || res.status >= 500) throw new RetryLater(`upstream answered ${res.status}`)
    return { status: res.status, reason: text.slice(0, 300) }
  }

  // Sends one version's entries; returns the entries refused for good, with why.
  async function deliverGroup (upstream, version, group) {
    const refused = await send(upstream, version, group.map((g) => g.text))
    if (!refused) return []
    if (refused.status !== 409 || group.length === 1) return [{ entries: group.map((g) => g.entry), ...refused }]
    const out = []
    for (const one of group) out.push(...await deliverGroup(upstream, version, [one]))
    return out
  }

  async function deliver (upstream) {
    let heldAt = Date.now()
    const leased = await outbox.lease(upstream.id, { limit: BATCH, leaseMs })
    if (!leased.length) return 0
    // The lease is for the POST's timeout twice over; a slow database may
    // have used much of it before the POST, or use it up after: held anew
    // then, so that no other worker takes the batch while this one still
    // delivers it (the upstream would get it twice).
    const keep = async () => {
      if (Date.now() - heldAt < leaseMs / 3) return
      await outbox.hold(leased.map((e) => e.id), { ms: leaseMs })
      heldAt = Date.now()
    }
    const rows = await statements.findBodies(leased.map((e) => e.statementId))
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
      const text = withStored(row)
      const version = String(JSON.parse(row.body).version).startsWith('2.') ? '2.0.0' : '1.0.3'
      if (!byVersion.has(version)) byVersion.set(version, [])
      byVersion.get(version).push({ entry, text })
    }
    await outbox.remove(orphans)
    await outbox.release(waiting, { delayMs: IDLE_MS })
    const done = []
    try {
      for (const [version, group] of byVersion) {
        const refused = await deliverGroup(upstream, version, group)
        const dead = new Set()
        for (const r of refused) {
          await outbox.deadLetter(r.entries, { status: r.status, reason: r.reason })
          for (const e of r.entries) dead.add(e.id)
          logger.warn({ upstream: upstream.id, status: r.status, statements: r.entries.length }, 'upstream refused statements; moved to dead letters')
        }
        for (const g of group) if (!dead.has(g.entry.id)) done.push(g.entry.id)
      }
      await keep()
    } catch (err) {
      await outbox.remove(done)
      const rest = leased.map((e) => e.id).filter((id) => !done.includes(id) && !orphans.includes(id) && !waiting.includes(id))
      await outbox.release(rest).catch(() => {})
      throw err
    }
    await outbox.remove(done)
    return leased.length
  }

  async function loop (upstream, running) {
    let backoff = 0
    while (!stopped && !running.gone) {
      let sent = 0
      try {
        sent = await deliver(upstream)
        backoff = 0
      } catch (err) {
        backoff = Math.min(backoff ? backoff * 2 : BACKOFF_START_MS, BACKOFF_MAX_MS)
        logger.warn({ upstream: upstream.id, err, retryInMs: backoff }, 'forwarding failed')
      }
      if (!sent || backoff) await sleep(backoff || IDLE_MS)
    }
  }

  let sleeping = new Set()
  function sleep (ms) {
    return new Promise((resolve) => {
      const t = setTimeout(() => { sleeping.delete(wake); resolve() }, ms)
      const wake = () => { clearTimeout(t); resolve() }
      sleeping.add(wake)
    })
  }

  // One loop per current upstream; one whose upstream was removed (or
  // changed its credentials: same id, another Authorization) ends.
  function supervise () {
    const now = new Map(upstreams.all().map((u) => [u.id, u]))
    for (const [id, running] of loops) {
      const current = now.get(id)
      if (!current || current.auth !== running.upstream.auth) {
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
    }
  }
}

module.exports = { createForwarder }
