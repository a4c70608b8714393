'use strict'

// Overload far above capacity: many connections post large batches for a
// bounded time. Expect 2xx and 429 only (no 5xx), worker memory bounded,
// and every acknowledged statement stored.
//
//   node bench/overload.js            (about 30 s; BENCH_CONNECTIONS=400 BENCH_DURATION=15)

const fs = require('node:fs')
const path = require('node:path')
const autocannon = require('autocannon')
const { MongoClient } = require('mongodb')
const { scormStatement } = require('./statement-generator')
const { startDatabase, startLrs } = require('./lrs-process')

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 400)
const DURATION = Number(process.env.BENCH_DURATION || 15)
const BATCH = Number(process.env.BENCH_BATCH || 50)

function rssMiB (pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : 0
  } catch { return 0 }
}

async function main () {
  const db = await startDatabase()
  const dbName = 'overload'
  const lrs = await startLrs({ mongodbUri: db.uri, dbName, env: { LRS_LOG_LEVEL: process.env.LRS_LOG_LEVEL || 'warn' } })
  const pool = Array.from({ length: 200 }, (_, i) => JSON.stringify(Array.from({ length: BATCH }, (_, j) => scormStatement(i * BATCH + j))))
  let next = 0
  let peakRss = 0
  const sampler = setInterval(() => {
    const total = lrs.workerPids().reduce((sum, pid) => sum + rssMiB(pid), 0)
    peakRss = Math.max(peakRss, total)
  }, 250)
  const idleRss = lrs.workerPids().reduce((sum, pid) => sum + rssMiB(pid), 0)
  const statusCounts = {}
  const result = await autocannon({
    url: lrs.url + '/xapi/statements',
    method: 'POST',
    connections: CONNECTIONS,
    duration: DURATION,
    headers: { 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3', Authorization: 'Basic ' + Buffer.from('bench:bench-secret').toString('base64') },
    requests: [{ setupRequest: (req) => ({ ...req, body: pool[next++ % pool.length] }) }]
  }).on('response', (client, statusCode) => { statusCounts[statusCode] = (statusCounts[statusCode] || 0) + 1 })
  clearInterval(sampler)
  const client = new MongoClient(db.uri)
  const stored = await client.db(dbName).collection('statements').estimatedDocumentCount()
  await client.close()
  await lrs.stop()
  await db.stop()
  const fivexx = Object.entries(statusCounts).filter(([k]) => k.startsWith('5')).reduce((n, [, v]) => n + v, 0)
  const out = {
    date: new Date().toISOString(),
    connections: CONNECTIONS,
    batch: BATCH,
    durationSec: DURATION,
    statusCounts,
    errors: result.errors,
    timeouts: result.timeouts,
    acknowledgedStatements: (statusCounts['200'] || 0) * BATCH,
    stored,
    workersRssMiB: { idle: Math.round(idleRss), peak: Math.round(peakRss) },
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 }
  }
  process.stdout.write(JSON.stringify(out, null, 2) + '\n')
  fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true })
  fs.writeFileSync(path.join(__dirname, 'results', `overload-${out.date.replace(/[:.]/g, '-')}.json`), JSON.stringify(out, null, 2))
  const ok = fivexx === 0 && stored >= out.acknowledgedStatements
  process.stdout.write(`${ok ? 'PASS' : 'FAIL'}: ${JSON.stringify(statusCounts)}, ${fivexx} 5xx, ${out.acknowledgedStatements} acknowledged, ${stored} stored, workers RSS ${out.workersRssMiB.idle} -> peak ${out.workersRssMiB.peak} MiB\n`)
  process.exit(ok ? 0 : 1)
}

main().catch((err) => {
  process.stderr.write(`overload run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
