'use strict'

// Overload ramp (the Abacus study): connections rising step by step, each
// sending 20-statement batches back to back (closed loop) for a fixed time,
// until the LRS refuses work (429) and beyond. Per step: accepted
// statements/s, the share of 429s, P50/P99 of accepted requests, 5xx
// (there must be none), the workers' RSS and the load generator's own CPU
// (a saturated generator would flatten the curve).

const autocannon = require('autocannon')
const { statementBodies } = require('./statement-generator')
const { startLrs, rssMiB } = require('./lrs-process')
const { startStore } = require('./store')
const { percentile } = require('./report')

const BATCH = 20

// `rate`: statements/s offered (open loop, in requests of BATCH), instead
// of each connection sending again as soon as it is answered.
async function step (lrs, { connections, seconds, auth, pool, rate = null }) {
  const statuses = {}
  const acceptedMs = []
  let peakRss = 0
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMiB(lrs.workerPids()))
  }, 250)
  const cpuBefore = process.cpuUsage()
  const result = await autocannon({
    url: lrs.url + '/xapi/statements',
    method: 'POST',
    connections,
    duration: seconds,
    headers: { 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3', Authorization: 'Basic ' + Buffer.from(auth).toString('base64') },
    requests: [{ setupRequest: (req) => ({ ...req, body: pool() }) }],
    ...(rate && { overallRate: Math.max(1, Math.round(rate / BATCH)) })
  }).on('response', (client, status, bytes, ms) => {
    statuses[status] = (statuses[status] || 0) + 1
    if (status === 200) acceptedMs.push(ms)
  })
  clearInterval(sampler)
  const cpu = process.cpuUsage(cpuBefore)
  const answered = Object.values(statuses).reduce((a, b) => a + b, 0)
  const fiveXX = Object.entries(statuses).filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0)
  return {
    connections,
    acceptedStatementsPerSec: Math.round(((statuses[200] || 0) * BATCH) / result.duration),
    share429: answered ? Math.round(((statuses[429] || 0) / answered) * 1000) / 1000 : 0,
    refused429: statuses[429] || 0,
    p50Ms: percentile(acceptedMs, 50),
    p99Ms: percentile(acceptedMs, 99),
    fiveXX,
    errors: result.errors + result.timeouts,
    workersRssMiB: peakRss ? Math.round(peakRss) : null,
    generatorCpuShare: Math.round(((cpu.user + cpu.system) / 1e6 / result.duration) * 100) / 100
  }
}

// Request bodies of BATCH statements each (no ids: the LRS assigns them),
// the profile's statements one after another: `pool()` gives the next.
function batchPool () {
  return statementBodies(BATCH)
}

// target: { engine } (started here) or { url, auth }. Returns the steps.
async function overloadRamp ({ target, connections = [5, 10, 25, 50, 100, 200], seconds = 5, onStep = () => {} }) {
  const pool = batchPool()
  const store = target.url ? null : await startStore(target.engine)
  const lrs = target.url ? { url: target.url, workerPids: () => [], stop: async () => {} } : await startLrs({ store })
  const auth = target.url ? target.auth : 'bench:bench-secret'
  const steps = []
  try {
    for (const c of connections) {
      const s = await step(lrs, { connections: c, seconds, auth, pool })
      steps.push(s)
      onStep(s)
    }
  } finally {
    await lrs.stop()
    if (store) await store.stop()
  }
  return steps
}

module.exports = { overloadRamp, step, batchPool, BATCH }
