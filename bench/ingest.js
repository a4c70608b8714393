'use strict'

// Ingest benchmark: autocannon POSTs batches of ~1.8 KB statements to the
// LRS (pm2 cluster, the README way) and, in the same run, the same
// statements go through raw insertMany into the same database with the same
// batch size and concurrency. Prints both rates, their ratio, the LRS CPU
// time per statement and P50/P99 latency, and writes bench/results/*.json.
//
//   node bench/ingest.js                 # batches 1,5,20,100 x connections 10,100, 10 s each
//   BENCH_DURATION=5 BENCH_BATCHES=20 BENCH_CONNECTIONS=10 node bench/ingest.js

const fs = require('node:fs')
const path = require('node:path')
const autocannon = require('autocannon')
const { MongoClient } = require('mongodb')
const { scormStatement } = require('./statement-generator')
const { toRecord } = require('../src/resources/statements/statement-record')
const { STATEMENT_QUERY_INDEXES } = require('../src/storage/indexes')
const { startDatabase, startLrs, cpuSeconds } = require('./lrs-process')

const DURATION = Number(process.env.BENCH_DURATION || 10)
const BATCHES = (process.env.BENCH_BATCHES || '1,5,20,100').split(',').map(Number)
const CONNECTIONS = (process.env.BENCH_CONNECTIONS || '10,100').split(',').map(Number)
const POOL = 500

function bodies (batch) {
  const out = []
  for (let i = 0; i < POOL; i++) out.push(JSON.stringify(Array.from({ length: batch }, (_, j) => scormStatement(i * batch + j))))
  return out
}

async function runLrs (lrs, { batch, connections }) {
  const pool = bodies(batch)
  let next = 0
  const workers = lrs.workerPids()
  const cpuBefore = workers.reduce((sum, pid) => sum + cpuSeconds(pid), 0)
  const result = await autocannon({
    url: lrs.url + '/xapi/statements',
    method: 'POST',
    connections,
    duration: DURATION,
    headers: {
      'Content-Type': 'application/json',
      'X-Experience-API-Version': '1.0.3',
      Authorization: 'Basic ' + Buffer.from('bench:bench-secret').toString('base64')
    },
    requests: [{ setupRequest: (req) => ({ ...req, body: pool[next++ % POOL] }) }]
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

async function runRaw (collection, { batch, connections }) {
  const pool = bodies(batch).map((b) => JSON.parse(b))
  const authority = { objectType: 'Agent', name: 'bench', account: { homePage: 'http://localhost/lrs', name: 'bench' } }
  const deadline = Date.now() + DURATION * 1000
  let inserted = 0
  let next = 0
  const start = Date.now()
  // CPU this client spends in the driver, without building the documents:
  // what any LRS must at least pay to hand the same documents to insertMany.
  let buildCpu = 0
  const loop = async () => {
    while (Date.now() < deadline) {
      const before = process.cpuUsage()
      const stored = new Date()
      const docs = pool[next++ % POOL].map((s) => toRecord(s, { stored, authority, xapiVersion: '1.0.3' }).doc)
      const built = process.cpuUsage(before)
      buildCpu += built.user + built.system
      await collection.insertMany(docs, { ordered: false })
      inserted += docs.length
    }
  }
  const cpuBefore = process.cpuUsage()
  await Promise.all(Array.from({ length: connections }, loop))
  const cpu = process.cpuUsage(cpuBefore)
  return {
    statementsPerSec: inserted / ((Date.now() - start) / 1000),
    statements: inserted,
    driverCpuMicrosPerStatement: (cpu.user + cpu.system - buildCpu) / inserted
  }
}

async function main () {
  const db = await startDatabase()
  const dbName = 'bench_' + Date.now()
  const lrs = await startLrs({ mongodbUri: db.uri, dbName })
  const client = new MongoClient(db.uri, { maxPoolSize: 100, writeConcern: { w: 'majority', j: true } })
  const mdb = client.db(dbName)
  const engine = (await mdb.admin().command({ buildInfo: 1 })).ferretdbVersion ? 'ferretdb' : 'mongodb'
  const raw = mdb.collection('raw_statements')
  // The same indexes the LRS keeps on its statements collection.
  if (engine !== 'ferretdb') await raw.createIndexes(STATEMENT_QUERY_INDEXES)
  const scenarios = []
  try {
    for (const batch of BATCHES) {
      for (const connections of CONNECTIONS) {
        const l = await runLrs(lrs, { batch, connections })
        const r = await runRaw(raw, { batch, connections })
        const row = { batch, connections, lrs: l, raw: r, ratio: l.statementsPerSec / r.statementsPerSec }
        scenarios.push(row)
        process.stdout.write(`batch ${String(batch).padStart(3)} conns ${String(connections).padStart(3)}: LRS ${l.statementsPerSec.toFixed(0).padStart(6)} st/s, raw ${r.statementsPerSec.toFixed(0).padStart(6)} st/s, ratio ${(row.ratio * 100).toFixed(1).padStart(5)} %, ` +
          `CPU ${l.cpuMicrosPerStatement ? l.cpuMicrosPerStatement.toFixed(1) : '-'} us/st (raw client's driver alone ${r.driverCpuMicrosPerStatement.toFixed(1)}), p50 ${l.latencyMs.p50} ms, p99 ${l.latencyMs.p99} ms, non-2xx ${l.non2xx}, errors ${l.errors}\n`)
      }
    }
    // The ceiling: raw insertMany as a tuned client would do it (batches of
    // 100, 4 in flight), whatever the scenario's request shape.
    const best = await runRaw(raw, { batch: 100, connections: 4 })
    process.stdout.write(`raw insertMany ceiling (batch 100, 4 in flight): ${best.statementsPerSec.toFixed(0)} st/s (driver CPU ${best.driverCpuMicrosPerStatement.toFixed(1)} us/st); best LRS scenario reaches ${(Math.max(...scenarios.map((s) => s.lrs.statementsPerSec)) / best.statementsPerSec * 100).toFixed(1)} % of it\n`)
    const stored = await mdb.collection('statements').countDocuments()
    const acknowledged = scenarios.reduce((sum, s) => sum + s.lrs.statements, 0)
    process.stdout.write(`acknowledged ${acknowledged} statements, ${stored} stored\n`)
    const out = {
      date: new Date().toISOString(),
      database: engine,
      durationSec: DURATION,
      machine: { cpus: require('node:os').cpus().length, node: process.version },
      statementBytes: JSON.stringify(scormStatement(7)).length,
      acknowledged,
      stored,
      rawCeiling: best,
      scenarios
    }
    fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true })
    const file = path.join(__dirname, 'results', `ingest-${out.date.replace(/[:.]/g, '-')}.json`)
    fs.writeFileSync(file, JSON.stringify(out, null, 2))
    process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`)
  } finally {
    await client.close()
    await lrs.stop()
    await db.stop()
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
