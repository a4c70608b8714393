'use strict'

// Overload far above capacity: many connections post large batches for a
// bounded time. Expect 2xx and 429 only (no 5xx), worker memory bounded,
// and every acknowledged statement stored.
//
//   node bench/overload.js            (about 30 s; BENCH_CONNECTIONS=400 BENCH_DURATION=15)

const autocannon = require('autocannon')
const { statementBodies } = require('./statement-generator')
const { startLrs, rssMiB } = require('./lrs-process')
const { startStore } = require('./store')
const { percentile, saveResult } = require('./report')

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 400)
const DURATION = Number(process.env.BENCH_DURATION || 15)
const BATCH = Number(process.env.BENCH_BATCH || 50)
// Requests per second offered in all (open loop: a refused request is not
// sent again at once). Unset: closed loop, each connection sends its next
// request as soon as it has an answer, 429 or not.
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined
const WARM_UP_MS = 2000

async function main () {
  const store = await startStore()
  const lrs = await startLrs({ store })
  const nextBody = statementBodies(BATCH)
  let peakRss = 0
  const sampler = setInterval(() => {
    const total = rssMiB(lrs.workerPids())
    peakRss = Math.max(peakRss, total)
  }, 250)
  const idleRss = rssMiB(lrs.workerPids())
  const statusCounts = {}
  const acceptedMs = []
  const generatorCpuBefore = process.cpuUsage()
  const started = Date.now()
  const result = await autocannon({
    url: lrs.url + '/xapi/statements',
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION,
    ...(RATE && { overallRate: RATE }),
    headers: { 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3', Authorization: 'Basic ' + Buffer.from('bench:bench-secret').toString('base64') },
    requests: [{ setupRequest: (req) => ({ ...req, body: nextBody() }) }]
  }).on('response', (client, statusCode, bytes, ms) => {
    statusCounts[statusCode] = (statusCounts[statusCode] || 0) + 1
    if (statusCode === 200) acceptedMs.push({ at: Date.now() - started, ms })
  })
  clearInterval(sampler)
  const generatorCpu = process.cpuUsage(generatorCpuBefore)
  await lrs.stop()
  const stored = await store.count()
  await store.stop()
  const warm = acceptedMs.filter((a) => a.at >= WARM_UP_MS)
  const fivexx = Object.entries(statusCounts).filter(([k]) => k.startsWith('5')).reduce((n, [, v]) => n + v, 0)
  const out = {
    date: new Date().toISOString(),
    engine: store.engine,
    connections: CONNECTIONS,
    offeredRequestsPerSecond: RATE || 'closed loop',
    batch: BATCH,
    durationSec: DURATION,
    statusCounts,
    errors: result.errors,
    timeouts: result.timeouts,
    acknowledgedStatements: (statusCounts['200'] || 0) * BATCH,
    stored,
    workersRssMiB: { idle: Math.round(idleRss), peak: Math.round(peakRss) },
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    acceptedLatencyMs: { p50: percentile(acceptedMs.map((a) => a.ms), 50), p99: percentile(acceptedMs.map((a) => a.ms), 99) },
    // the first WARM_UP_MS left out: hundreds of connections opening at once
    acceptedAfterWarmUpMs: { p50: percentile(warm.map((a) => a.ms), 50), p99: percentile(warm.map((a) => a.ms), 99) },
    acceptedP99BySecond: Array.from({ length: DURATION }, (_, k) => percentile(acceptedMs.filter((a) => a.at >= k * 1000 && a.at < (k + 1) * 1000).map((a) => a.ms), 99)),
    // Near 100 %, the load generator itself is saturated: its latencies then include its own waiting.
    generatorCpuPercent: Math.round(((generatorCpu.user + generatorCpu.system) / 1e6 / DURATION) * 100)
  }
  process.stdout.write(JSON.stringify(out, null, 2) + '\n')
  saveResult('overload', out)
  const ok = fivexx === 0 && stored >= out.acknowledgedStatements
  process.stdout.write(`${ok ? 'PASS' : 'FAIL'}: ${JSON.stringify(statusCounts)}, ${fivexx} 5xx, ${out.acknowledgedStatements} acknowledged, ${stored} stored, workers RSS ${out.workersRssMiB.idle} -> peak ${out.workersRssMiB.peak} MiB, accepted P50/P99 ${out.acceptedLatencyMs.p50}/${out.acceptedLatencyMs.p99} ms (after ${WARM_UP_MS / 1000} s: ${out.acceptedAfterWarmUpMs.p50}/${out.acceptedAfterWarmUpMs.p99} ms), load generator CPU ${out.generatorCpuPercent} %\n`)
  process.exit(ok ? 0 : 1)
}

main().catch((err) => {
  process.stderr.write(`overload run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
