'use strict'

// Group commit. The statements of concurrent requests wait in one queue per
// worker and are written with as few writes as possible: a write starts at
// once when the database is idle, otherwise when the running write finishes
// (or, with up to `maxConcurrentWrites`, as soon as a full batch is
// waiting). No timer per request. A request is answered only after its
// statements are durably stored. What a write does is not the batcher's
// business: `write(groups, { submittedAt })` gets one group of records per
// request (and when the first of them was submitted) and returns a
// Map(group index -> Error) of the requests that failed.
// A write that fails as a whole with an error for which `failsQueued(err)`
// holds (the database is unavailable) fails the requests queued behind it
// too, with that error: each would otherwise wait for its own write to fail
// the same way, one write after another, however long the client waits.

const { errors } = require('../errors')

const RATE_WINDOW_MS = 2000

function createStatementBatcher ({ write, maxBatch, maxInFlight, maxConcurrentWrites, failsQueued = () => false, logger }) {
  const queue = [] // pending requests: { records, resolve, reject }
  const waiting = new Set() // submit times of the requests not answered yet
  let queuedStatements = 0
  let inFlight = 0
  let writing = 0
  let scheduled = false
  const idleWaiters = []
  // For the drain rate: statements written by recent writes, and the spans
  // of time when at least one write was running (an idle LRS's rate says
  // how little it was asked, not how fast it can write).
  const completions = [] // { at, statements }
  const busy = [] // { from, to } spans
  let busySince = null
  let perRequest = null // statements per request, a moving average

  function submit (records) {
    // Backpressure: refuse at once rather than queue without bound; a
    // request larger than the whole budget is still taken when idle.
    if (inFlight > 0 && inFlight + records.length > maxInFlight) {
      throw errors.TooManyRequests(`more than ${maxInFlight} statements are waiting to be stored; retry shortly`, { headers: { 'Retry-After': '1' } })
    }
    inFlight += records.length
    perRequest = perRequest === null ? records.length : perRequest * 0.95 + records.length * 0.05
    const submitted = { at: Date.now() }
    waiting.add(submitted)
    return new Promise((resolve, reject) => {
      queue.push({ records, resolve, reject, submitted })
      queuedStatements += records.length
      schedule()
    })
  }

  function canStart () {
    return writing === 0 || (queuedStatements >= maxBatch && writing < maxConcurrentWrites)
  }

  function schedule () {
    if (scheduled || !canStart()) return
    scheduled = true
    // Let requests parsed in this same turn of the event loop join the batch.
    setImmediate(flush)
  }

  function takeBatch () {
    const batch = []
    let count = 0
    while (queue.length && (count === 0 || count + queue[0].records.length <= maxBatch)) {
      const req = queue.shift()
      batch.push(req)
      count += req.records.length
    }
    queuedStatements -= count
    return { batch, count }
  }

  function flush () {
    scheduled = false
    while (queue.length && canStart()) {
      const { batch, count } = takeBatch()
      if (writing === 0) busySince = Date.now()
      writing++
      run(batch).finally(() => {
        writing--
        if (writing === 0) busy.push({ from: busySince, to: Date.now() })
        inFlight -= count
        completions.push({ at: Date.now(), statements: count })
        if (queue.length) schedule()
        else if (writing === 0) while (idleWaiters.length) idleWaiters.shift()()
      })
    }
  }

  async function run (batch) {
    let failed
    try {
      failed = await write(batch.map((req) => req.records), { submittedAt: batch[0].submitted.at })
    } catch (err) {
      logger.warn({ err, statements: batch.reduce((n, req) => n + req.records.length, 0) }, 'statement batch write failed')
      for (const req of batch) {
        waiting.delete(req.submitted)
        req.reject(err)
      }
      if (failsQueued(err)) failQueue(err)
      return
    }
    batch.forEach((req, i) => {
      waiting.delete(req.submitted)
      if (failed.has(i)) req.reject(failed.get(i))
      else req.resolve()
    })
  }

  function failQueue (err) {
    while (queue.length) {
      const req = queue.shift()
      queuedStatements -= req.records.length
      inFlight -= req.records.length
      waiting.delete(req.submitted)
      req.reject(err)
    }
  }

  // Statements written per second of writing, over the last couple of seconds.
  function drainRate (now) {
    const since = now - RATE_WINDOW_MS
    while (completions.length && completions[0].at < since) completions.shift()
    while (busy.length && busy[0].to < since) busy.shift()
    let written = 0
    for (const c of completions) written += c.statements
    let busyMs = writing ? now - Math.max(busySince, since) : 0
    for (const b of busy) busyMs += b.to - Math.max(b.from, since)
    return busyMs > 0 ? (written / busyMs) * 1000 : 0
  }

  return {
    submit,
    statementsInFlight: () => inFlight,
    // How long a request accepted now would wait for its statements to be
    // stored (ms): the statements ahead of it (queued or being written) at
    // the recent drain rate (Little's law), and at least as long as the
    // request waiting longest has waited so far (a stalled or starved
    // write shows there first).
    expectedWaitMs () {
      const now = Date.now()
      let oldest = now
      for (const w of waiting) { oldest = w.at; break } // insertion order: the first is the oldest
      const rate = inFlight ? drainRate(now) : 0
      return Math.max(now - oldest, rate > 0 ? (inFlight / rate) * 1000 : 0)
    },
    // Statements written per second of writing recently (0: no write in
    // the last couple of seconds), and per request.
    statementsPerSecond: () => drainRate(Date.now()),
    statementsPerRequest: () => perRequest,
    drain () {
      if (inFlight === 0) return Promise.resolve()
      return new Promise((resolve) => idleWaiters.push(resolve))
    }
  }
}

module.exports = { createStatementBatcher }
