'use strict'

// The read path as the store grows: the store is filled to each size in
// BENCH_SIZES through the engine's own write path (in this process, fast),
// and at each size every GET /statements shape is timed over HTTP against
// the LRS (pm2 cluster, the README way) while statements keep arriving
// through POST /statements at BENCH_INGEST_RATE statements/s (open loop).
// Prints P50/P99 per shape and size; writes bench/results/*.json.
//
//   node bench/read-path.js                                   (sqlite; sizes 100000,1000000; ~5 min)
//   BENCH_SIZES=20000 BENCH_QUERIES=20 node bench/read-path.js  (quick)

const os = require('node:os')
const path = require('node:path')
const { scormStatement } = require('./statement-generator')
const { startLrs } = require('./lrs-process')
const { startStore } = require('./store')
const { fillStore, openStoreStorage } = require('./fill-store')
const { saveResult } = require('./report')
const { SHAPES, timeShape, backgroundIngest, INGEST_BATCH, AUTH } = require('./statement-queries')

const SIZES = (process.env.BENCH_SIZES || '100000,1000000').split(',').map(Number)
const QUERIES = Number(process.env.BENCH_QUERIES || 40)
const INGEST_RATE = Number(process.env.BENCH_INGEST_RATE || 1000)

async function main () {
  const store = await startStore()
  const lrs = await startLrs({ store })
  const storage = await openStoreStorage(store)
  const results = []
  let filled = 0
  try {
    for (const size of SIZES) {
      process.stderr.write(`filling to ${size} statements\n`)
      const loadRate = await fillStore(storage, filled, size, { onProgress: (n) => process.stderr.write(`  filled ${n} of ${size}\r`) })
      process.stderr.write('\n')
      filled = size
      const ingest = backgroundIngest(lrs.url, { rate: INGEST_RATE })
      // Warm-up, not counted: every shape once per worker, ingest under way.
      for (const shape of Object.values(SHAPES)) for (let w = 0; w < 4; w++) await fetch(`${lrs.url}/xapi/statements?${shape(scormStatement(w))}`, { headers: { Authorization: AUTH, 'X-Experience-API-Version': '1.0.3' } }).then((r) => r.arrayBuffer())
      await new Promise((resolve) => setTimeout(resolve, 1000))
      // Pages of 100 (the default): what clients see. Pages of 2: the same
      // number of rows at every size (a key has more statements as the
      // store grows; the completion check matches 3 statements at 100 k),
      // so the growth of the query itself shows.
      const shapes = {}
      const small = {}
      for (const [name, shape] of Object.entries(SHAPES)) {
        shapes[name] = await timeShape(lrs.url, shape, '', { queries: QUERIES })
        small[name] = await timeShape(lrs.url, shape, '&limit=2', { queries: QUERIES })
        process.stdout.write(`${String(size).padStart(8)} statements  ${name.padEnd(46)} P50 ${String(shapes[name].p50Ms).padStart(6)} ms  P99 ${String(shapes[name].p99Ms).padStart(6)} ms  (${shapes[name].rowsPerQuery.toFixed(0)} rows)   limit 2: P50 ${String(small[name].p50Ms).padStart(6)} ms  P99 ${String(small[name].p99Ms).padStart(6)} ms\n`)
      }
      const done = await ingest.stop()
      results.push({ size, loadRatePerSec: Math.round(loadRate), ingestDuringQueries: { statementsPerSec: Math.round((done['2xx'] * INGEST_BATCH) / done.duration), non2xx: done.non2xx, p99Ms: done.latency.p99 }, shapes, limit2: small })
    }
  } finally {
    await storage.close()
    await lrs.stop()
  }
  const stored = await store.count()
  const bytes = store.bytesOnDisk()
  await store.stop()
  const out = {
    date: new Date().toISOString(),
    engine: store.engine,
    machine: { cpus: os.cpus().length, node: process.version },
    queriesPerShape: QUERIES,
    ingestRate: INGEST_RATE,
    stored,
    bytesPerStatement: bytes && stored ? Math.round(bytes / stored) : null,
    results
  }
  process.stdout.write(`stored ${stored}, ${out.bytesPerStatement} bytes on disk per statement\n`)
  if (results.length > 1) {
    const [first, last] = [results[0], results[results.length - 1]]
    for (const name of Object.keys(SHAPES)) {
      process.stdout.write(`P50 growth ${first.size} -> ${last.size}, limit 2, ${name}: ${(last.limit2[name].p50Ms / first.limit2[name].p50Ms).toFixed(2)} x\n`)
    }
  }
  const file = saveResult('read-path', out)
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`)
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
