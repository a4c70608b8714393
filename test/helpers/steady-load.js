'use strict'

// A steady load of statement writes over several hosts, as clients behind a
// load balancer send it: `rate` statements a second in POSTs of
// `perRequest`, each POST to the next host in turn. Like clients that
// retry, a POST that fails on its connection (refused, reset: its host
// gone) is sent again at once to the next host, and one answered 503 or
// 429 again after its Retry-After, with the same statements (ids included),
// until the load stops. Like a load balancer, a host whose connection
// failed gets no more requests until its GET /health/ready answers 200
// again (asked every 500 ms); with every host out, all get requests (fail
// open). A host may carry its own `auth` ({ user, password }: a store's
// credential), else `admin` signs. Every answer is recorded; `acknowledged` holds the ids of the
// statements some host answered 200 for.

const crypto = require('node:crypto')

function basic ({ user, password }) {
  return 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64')
}

function steadyLoad ({ hosts, admin, rate = 200, perRequest = 5, timeoutMs = 30000, maxInFlight = 64, statement }) {
  const answers = [] // { at, host, status, ms } (status 'connection' for a failed connection)
  const acknowledged = new Set()
  const acknowledgedAt = new Map() // id -> when the answer that acknowledged it came (its first)
  const sent = new Set()
  let stopped = false
  let turn = 0
  let inFlight = 0
  let skipped = 0
  const pending = new Set()
  const headers = { Authorization: basic(admin), 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' }
  const make = statement || (() => ({ id: crypto.randomUUID(), actor: { mbox: `mailto:learner${crypto.randomInt(100000)}@example.org` }, verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' }, object: { id: `http://example.org/courses/${crypto.randomInt(100)}` } }))

  const out = new Set() // hosts the balancer has taken out
  function takeOut (host) {
    if (out.has(host)) return
    out.add(host)
    const probe = async () => {
      try {
        const res = await fetch(host.url + '/health/ready', { signal: AbortSignal.timeout(1000) })
        await res.arrayBuffer()
        if (res.status === 200) return out.delete(host)
      } catch {}
      if (!stopped) setTimeout(probe, 500)
      else out.delete(host)
    }
    setTimeout(probe, 500)
  }
  function nextHost () {
    for (let i = 0; i < hosts.length; i++) {
      const host = hosts[turn++ % hosts.length]
      if (!out.has(host)) return host
    }
    return hosts[turn++ % hosts.length]
  }

  async function send (body, ids) {
    for (let attempt = 0; !stopped || attempt === 0; attempt++) {
      const host = nextHost()
      const started = Date.now()
      let status
      let retryAfter = 0
      let message
      try {
        const res = await fetch(host.url + '/xapi/statements', { method: 'POST', headers: host.auth ? { ...headers, Authorization: basic(host.auth) } : headers, body, signal: AbortSignal.timeout(timeoutMs) })
        const text = await res.text()
        status = res.status
        // why a 5xx came (reports say which refusal it was)
        if (status >= 500) { try { message = JSON.parse(text).message } catch { message = text.slice(0, 200) } }
        retryAfter = Number(res.headers.get('retry-after')) || 0
      } catch (err) {
        status = err.name === 'TimeoutError' ? 'timeout' : 'connection'
        if (status === 'connection') takeOut(host)
      }
      answers.push({ at: started, host: host.name, status, ms: Date.now() - started, ...(message && { message }) })
      if (status === 200) {
        for (const id of ids) {
          acknowledged.add(id)
          if (!acknowledgedAt.has(id)) acknowledgedAt.set(id, Date.now())
        }
        return
      }
      if (status !== 'connection' && status !== 503 && status !== 429) return // a refusal for good: recorded
      if (stopped) return
      if (status !== 'connection') await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000))
    }
  }

  const perSecond = rate / perRequest
  const timer = setInterval(() => {
    if (inFlight >= maxInFlight) { skipped++; return }
    const statements = Array.from({ length: perRequest }, make)
    const ids = statements.map((s) => s.id)
    for (const id of ids) sent.add(id)
    inFlight++
    const p = send(JSON.stringify(statements), ids).finally(() => { inFlight--; pending.delete(p) })
    pending.add(p)
  }, 1000 / perSecond)

  return {
    answers,
    acknowledged,
    acknowledgedAt,
    sent,
    skipped: () => skipped,
    async stop () {
      clearInterval(timer)
      stopped = true
      await Promise.allSettled([...pending])
    }
  }
}

// Answers by status (and by host) within [from, to).
function countAnswers (answers, { from = 0, to = Infinity, host } = {}) {
  const counts = {}
  for (const a of answers) {
    if (a.at < from || a.at >= to || (host && a.host !== host)) continue
    counts[a.status] = (counts[a.status] || 0) + 1
  }
  return counts
}

module.exports = { steadyLoad, countAnswers, basic }
