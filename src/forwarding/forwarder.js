'use strict'

// Forwards stored statements to upstream LRSs. Off unless LRS_FORWARD_URLS
// is set; then the write path adds outbox entries (no reads), and this loop,
// in the background of each worker, reads statements back, POSTs them in
// batches (keeping their ids, so a retry is idempotent), and removes what
// was delivered. A failing upstream backs off exponentially (capped) and
// never holds up ingest.

const BATCH = 100
const LEASE_MS = 30000
const IDLE_MS = 500
const BACKOFF_START_MS = 500
const BACKOFF_MAX_MS = 60000
const REQUEST_TIMEOUT_MS = 15000

function parseUpstream (raw) {
  const url = new URL(raw)
  const auth = url.username ? 'Basic ' + Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64') : null
  url.username = ''
  url.password = ''
  return { endpoint: url.toString().replace(/\/+$/, '') + '/statements', auth, label: url.host }
}

function createForwarder ({ urls, outbox, statements, logger }) {
  const upstreams = urls.map(parseUpstream)
  let stopped = false
  const loops = []

  async function enqueue (records) {
    await outbox.enqueue(upstreams.length, records.map((r) => r.doc._id))
  }

  async function deliver (upstream, index) {
    const leased = await outbox.lease(index, { limit: BATCH, leaseMs: LEASE_MS })
    if (!leased.length) return 0
    try {
      await post(upstream, leased)
    } catch (err) {
      await outbox.release(leased.map((r) => r._id)).catch(() => {})
      throw err
    }
    // Statements missing locally (cannot happen unless deleted) are dropped too.
    await outbox.remove(leased.map((r) => r._id))
    return leased.length
  }

  async function post (upstream, leased) {
    const bodies = await statements.findBodiesByIds(leased.map((r) => r.statementId))
    const found = leased.filter((r) => bodies.has(r.statementId))
    // Group by xAPI major version so each POST carries a matching header.
    const byVersion = new Map()
    for (const r of found) {
      const body = bodies.get(r.statementId)
      const version = String(JSON.parse(body).version).startsWith('2.') ? '2.0.0' : '1.0.3'
      if (!byVersion.has(version)) byVersion.set(version, [])
      byVersion.get(version).push(r)
    }
    for (const [version, rows] of byVersion) {
      const res = await fetch(upstream.endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Experience-API-Version': version, ...(upstream.auth && { Authorization: upstream.auth }) },
        body: '[' + rows.map((r) => bodies.get(r.statementId)).join(',') + ']',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
      })
      await res.arrayBuffer() // always consume the body so the connection is reused
      if (res.status === 409) logger.warn({ upstream: upstream.label, count: rows.length }, 'upstream holds different statements with these ids; dropped')
      else if (!res.ok) throw new Error(`upstream answered ${res.status}`)
    }
  }

  async function loop (upstream, index) {
    let backoff = 0
    while (!stopped) {
      let sent = 0
      try {
        sent = await deliver(upstream, index)
        backoff = 0
      } catch (err) {
        backoff = Math.min(backoff ? backoff * 2 : BACKOFF_START_MS, BACKOFF_MAX_MS)
        logger.warn({ upstream: upstream.label, err: err.message, retryInMs: backoff }, 'forwarding failed')
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

  return {
    enqueue,
    start () {
      for (let i = 0; i < upstreams.length; i++) loops.push(loop(upstreams[i], i))
    },
    async stop () {
      stopped = true
      for (const wake of sleeping) wake()
      sleeping = new Set()
      await Promise.allSettled(loops)
    }
  }
}

module.exports = { createForwarder }
