'use strict'

// Storage engines side by side (the RocksDB/InnoDB study): each engine's
// store is filled through its own write path (storage.statements.storeBatch,
// in this process: no HTTP, no validation), and at each size we measure
// the insert rate of the last slice, the bytes on disk per statement and
// the latency of a stored-ordered query (an agent's 10 newest
// statements), the engines taking turns at every size. An engine stops at
// its `maxSize` (FerretDB scans for every filtered query: seconds per
// query at 50,000).
//
//   node bench/engines.js                       (sqlite and ferretdb, small sizes)
//   BENCH_SIZES=100000,1000000 BENCH_ENGINES=sqlite node bench/engines.js

const path = require('node:path')
const { scormStatement } = require('./statement-generator')
const { statementQuery } = require('../src/storage/statement-query')
const { agentKey } = require('../src/resources/agents/agent-keys')
const { startStore } = require('./store')
const { fillStore, openStoreStorage } = require('./fill-store')
const { percentile, saveResult } = require('./report')

async function openEngine (engine) {
  const store = await startStore(engine)
  return { engine, store, storage: await openStoreStorage(store), filled: 0 }
}

// An agent's 10 newest statements, for random learners of the population.
async function timeQuery ({ storage, filled }, queries) {
  const times = []
  for (let q = 0; q < queries + 2; q++) {
    const s = scormStatement(Math.floor(Math.random() * filled))
    const started = process.hrtime.bigint()
    const rows = await storage.statements.query(statementQuery({ agent: agentKey(s.actor), limit: 10 }))
    if (!rows.length) throw new Error(`no statements of ${agentKey(s.actor)}`)
    if (q >= 2) times.push(Number(process.hrtime.bigint() - started) / 1e6) // two warm-up queries
  }
  return { p50Ms: percentile(times, 50), p99Ms: percentile(times, 99) }
}

// engines: names; sizes: ascending statement counts; maxSize: { engine: n }.
async function storageEngines ({ engines, sizes, maxSize = {}, queries = 20, onStep = () => {} }) {
  const open = []
  const steps = []
  try {
    for (const engine of engines) open.push(await openEngine(engine))
    for (const [k, size] of sizes.entries()) {
      // the engines take turns, in the other order at every size
      const turn = k % 2 ? [...open].reverse() : open
      for (const e of turn) {
        if (size > (maxSize[e.engine] ?? Infinity)) continue
        const statementsPerSec = await fillStore(e.storage, e.filled, size)
        e.filled = size
        const bytes = e.store.bytesOnDisk()
        const query = await timeQuery(e, queries)
        const step = { engine: e.engine, statements: size, insertStatementsPerSec: Math.round(statementsPerSec), bytesPerStatement: bytes === null ? null : Math.round(bytes / size), agentQueryP50Ms: query.p50Ms, agentQueryP99Ms: query.p99Ms }
        steps.push(step)
        onStep(step)
      }
    }
  } finally {
    for (const e of open) {
      await e.storage.close()
      await e.store.stop()
    }
  }
  return steps
}

module.exports = { storageEngines }

if (require.main === module) {
  const engines = (process.env.BENCH_ENGINES || 'sqlite,ferretdb').split(',')
  const sizes = (process.env.BENCH_SIZES || '10000,25000').split(',').map(Number)
  storageEngines({ engines, sizes, onStep: (s) => process.stdout.write(JSON.stringify(s) + '\n') })
    .then((steps) => process.stdout.write(`wrote ${path.relative(process.cwd(), saveResult('engines', { date: new Date().toISOString(), steps }))}\n`))
    .catch((err) => {
      process.stderr.write(`bench failed: ${err.stack || err.message}\n`)
      process.exit(1)
    })
}
