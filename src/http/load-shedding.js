'use strict'

// Overload sheds by waiting time, not only by memory: when a request would
// wait longer than LRS_MAX_WAIT_MS before being served, it gets 429 with
// Retry-After at once, before its body is read, so the requests that are
// accepted keep their latency. The wait is estimated from how late the
// event loop runs (time a request spends queued before it is even parsed)
// plus, for statement writes, the write batcher's backlog at its recent
// drain rate.

const { monitorEventLoopDelay } = require('node:perf_hooks')
const { errors } = require('../errors')

const SAMPLE_MS = 250

function createLoadShedder ({ maxWaitMs, batcher }) {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  let lagMs = 0
  const sampler = setInterval(() => {
    lagMs = delay.count ? delay.percentile(90) / 1e6 : 0
    delay.reset()
  }, SAMPLE_MS)
  sampler.unref()

  function isStatementWrite (req) {
    return req.path === '/statements' && (req.method === 'POST' || req.method === 'PUT')
  }

  return {
    middleware (req, res, next) {
      const wait = lagMs + (isStatementWrite(req) ? batcher.expectedWaitMs() : 0)
      if (wait <= maxWaitMs) return next()
      next(errors.TooManyRequests(`the LRS is busy (expected wait ${Math.round(wait)} ms); retry shortly`, { headers: { 'Retry-After': '1' } }))
    },
    stop () {
      clearInterval(sampler)
      delay.disable()
    }
  }
}

module.exports = { createLoadShedder }
