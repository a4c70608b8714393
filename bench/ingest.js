'use strict'

// Ingest benchmark, per storage engine: autocannon POSTs batches of ~1.8 KB
// statements to the LRS (pm2 cluster, the README way) and, in the same run,
// the same statements go straight into the engine's own write path
// (storage.statements.storeBatch in this process: no HTTP, no validation)
// with the same batch size and concurrency. Prints both rates, their ratio,
// CPU per statement of each, the share of the LRS's CPU the engine's own
// write takes, P50/P99 latency and bytes on disk per statement; writes
// bench/results/*.json.
//
//   node bench/ingest.js          engines sqlite,ferretdb; batches 1,5,20,100 x connections 10,100; 10 s each
//   BENCH_ENGINES=sqlite BENCH_BATCHES=20 BENCH_CONNECTIONS=10,100 BENCH_DURATION=8 node bench/ingest.js

const os = require('node:os')
const path = require('node:path')
const autocannon = require('autocannon')
const { scormStatement, statementBodies } = require('./statement-generator')
const { toRecord } = require('../src/resources/statements/statement-record')
const { loadConfig } = require('../src/config')
const { createLogger } = require('../src/logger')
const { openStorage } = require('../src/storage')
const { startLrs, cpuSeconds } = require('./lrs-process')
const { startStore } = require('./store')
const { saveResult } = require('./report')

const DURATION = Number(process.env.BENCH_DURATION || 10)
const ENGINES = (process.env.BENCH_ENGINES || 'sqlite,ferretdb').split(',')
const BATCHES = (process.env.BENCH_BATCHES || '1,5,20,100').split(',').map(Number)
const CONNECTIONS = (process.env.BENCH_CONNECTIONS || '10,100').split(',').map(Number)
const AUTHORITY = { objectType: 'Agent', name: 'bench', account: { homePage: 'http://localhost/lrs', name: 'bench' } }


async function runLrs (lrs, { batch, connections, duration = DURATION, auth = 'bench:bench-secret' }) {
  const nextBody = statementBodies(batch)
  const workers = lrs.workerPids()
  const cpuBefore = workers.reduce((sum, pid) => sum + cpuSeconds(pid), 0)
  const result = await autocannon({
    url: lrs.url + '/xapi/statements',
    method: 'POST',
    connections,
    duration,
    headers: {
      'Content-Type': 'application/json',
      'X-Experience-API-Version': '1.0.3',
      Authorization: 'Basic ' + Buffer.from(auth).toString('base64')
    },
    requests: [{ setupRequest: (req) => ({ ...req, body: nextBody() }) }]
  })
  const cpu = workers.reduce((sum, pid) => sum + cpuSeconds(pid), 0) - cpuBefore
  const statements = result['2xx'] * batch
  return {
    statementsPerSec: statements / result.duration,
    requests2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    cpuMicrosPerStatement: statements ? (cpu / statements) * 1e6 : null,
    statements
  }
}

// The engine's own write path, fed the same records the LRS would build.
async function runRaw (storage, { batch, connections, duration = DURATION }) {
  const nextBody = statementBodies(batch)
  const deadline = Date.now() + duration * 1000
  let stored = 0
  let buildCpu = 0
  const loop = async () => {
    while (Date.now() < deadline) {
      const before = process.cpuUsage()
      // no id, as the bench's statements reach the LRS: toRecord makes one
      const records = JSON.parse(nextBody()).map((s) => toRecord(s, { authority: AUTHORITY, xapiVersion: '1.0.3' }))
      const built = process.cpuUsage(before)
      buildCpu += built.user + built.system
      await storage.statements.storeBatch([records], { stored: new Date(), sameStatement: () => true })
      stored += records.length
    }
  }
  const start = Date.now()
  const cpuBefore = process.cpuUsage()
  await Promise.all(Array.from({ length: connections }, loop))
  const cpu = process.cpuUsage(cpuBefore)
  return {
    statementsPerSec: stored / ((Date.now() - start) / 1000),
    statements: stored,
    // CPU of this process (all its threads) in the engine's write path, not building the records.
    engineCpuMicrosPerStatement: (cpu.user + cpu.system - buildCpu) / stored
  }
}

// A second store on the same engine for the raw runs, opened in this process.
async function openRawStorage (engine) {
  const store = await startStore(engine)
  const env = { ...store.lrsEnv, LRS_LOG_LEVEL: 'warn' }
  if (env.MONGODB_DB) env.MONGODB_DB += '_raw'
  const storage = openStorage(loadConfig(env), createLogger({ logLevel: 'warn' }))
  await storage.ready
  return { storage, async stop () { await storage.close(); await store.stop() } }
}

function line (engine, row) {
  const { lrs: l, raw: r } = row
  if (!r) return `${engine.padEnd(8)} batch ${String(row.batch).padStart(3)} conns ${String(row.connections).padStart(3)}: LRS ${l.statementsPerSec.toFixed(0).padStart(6)} st/s, p50 ${l.latencyMs.p50} ms, p99 ${l.latencyMs.p99} ms, non-2xx ${l.non2xx}, errors ${l.errors}\n`
  return `${engine.padEnd(8)} batch ${String(row.batch).padStart(3)} conns ${String(row.connections).padStart(3)}: LRS ${l.statementsPerSec.toFixed(0).padStart(6)} st/s, ` +
    `engine alone ${r.statementsPerSec.toFixed(0).padStart(6)} st/s, ratio ${(row.ratio * 100).toFixed(0).padStart(3)} %, ` +
    `LRS CPU ${l.cpuMicrosPerStatement ? l.cpuMicrosPerStatement.toFixed(0) : '-'} us/st (engine's write ${r.engineCpuMicrosPerStatement.toFixed(0)}, ${(row.engineShare * 100).toFixed(0)} %), ` +
    `p50 ${l.latencyMs.p50} ms, p99 ${l.latencyMs.p99} ms, non-2xx ${l.non2xx}, errors ${l.errors}\n`
}

// The sweep: per engine, every batch size and connection count, the LRS
// and the engine alone alternating. `url`: a running LRS instead (no
// engine-alone figure then; `auth` its credentials). Returns the runs.
async function ingestSweep ({ engines = ENGINES, batches = BATCHES, connections: connectionCounts = CONNECTIONS, duration = DURATION, url = null, auth = 'bench:bench-secret', onRow = () => {} } = {}) {
  const runs = []
  if (url) {
    const scenarios = []
    for (const batch of batches) {
      for (const connections of connectionCounts) {
        const row = { batch, connections, lrs: await runLrs({ url, workerPids: () => [] }, { batch, connections, duration, auth }) }
        scenarios.push(row)
        onRow('remote', row)
      }
    }
    return [{ engine: 'remote', url, scenarios }]
  }
  for (const engine of engines) {
    const store = await startStore(engine)
    const lrs = await startLrs({ store })
    const raw = await openRawStorage(engine)
    const scenarios = []
    try {
      for (const batch of batches) {
        for (const connections of connectionCounts) {
          const l = await runLrs(lrs, { batch, connections, duration, auth })
          const r = await runRaw(raw.storage, { batch, connections, duration })
          const row = { batch, connections, lrs: l, raw: r, ratio: l.statementsPerSec / r.statementsPerSec, engineShare: l.cpuMicrosPerStatement ? r.engineCpuMicrosPerStatement / l.cpuMicrosPerStatement : null }
          scenarios.push(row)
          onRow(engine, row)
        }
      }
    } finally {
      await lrs.stop()
      await raw.stop()
    }
    const stored = await store.count()
    const bytes = store.bytesOnDisk()
    await store.stop()
    const acknowledged = scenarios.reduce((sum, s) => sum + s.lrs.statements, 0)
    runs.push({ engine, acknowledged, stored, bytesOnDisk: bytes, bytesPerStatement: bytes && stored ? Math.round(bytes / stored) : null, scenarios })
  }
  return runs
}

async function main () {
  const runs = await ingestSweep({ onRow: (engine, row) => process.stdout.write(line(engine, row)) })
  for (const run of runs) process.stdout.write(`${run.engine}: acknowledged ${run.acknowledged}, stored ${run.stored}, ${run.bytesPerStatement ?? '-'} bytes on disk per statement\n`)
  const out = {
    date: new Date().toISOString(),
    durationSec: DURATION,
    machine: { cpus: os.cpus().length, node: process.version },
    statementBytes: JSON.stringify(scormStatement(7)).length,
    runs
  }
  const file = saveResult('ingest', out)
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`)
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`bench failed: ${err.stack || err.message}\n`)
    process.exit(1)
  })
}

module.exports = { ingestSweep, line, runRaw, openRawStorage }
