'use strict'

// Bulk load (the Ed-Fi bulk-load study): one file of statements
// as `npm run export` writes them (ids, stored, authority), loaded three
// ways into a fresh store each time, alternating, BENCH_REPEAT times:
//   raw     the engine's own insert of the same records
//           (storage.statements.insertStored, 1,000 at a time, no validation)
//   import  `npm run import` (bin/lrs.js import, with the node
//           flags of its npm script): read, validate, insert
//   api     POST /statements to the LRS under PM2, 100 statements per
//           request on 10 connections, a 429 sent again after its
//           Retry-After (postAll)
//   http    POST /admin/statements/import to the LRS under PM2: the file
//           streamed, HTTP_PART statements a request, one after the other
//           (a request body has the server's 5 minutes to arrive)
// Prints the median rate of each, import/raw and import/api; writes
// bench/results/bulk-load-*.json.
//
//   BENCH_STATEMENTS=50000 BENCH_REPEAT=3 BENCH_ENGINE=sqlite node bench/bulk-load.js
//   BENCH_STATEMENTS=10000000 BENCH_REPEAT=1 BENCH_BULK_WAYS=import node bench/bulk-load.js

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const { Readable } = require('node:stream')
const { writeExportFile, lineChunks } = require('./export-file')
const { toRecord } = require('../src/resources/statements/statement-record')
const { loadConfig } = require('../src/config')
const { createLogger } = require('../src/logger')
const { openStorage } = require('../src/storage')
const { startLrs } = require('./lrs-process')
const { startStore } = require('./store')
const { percentile, saveResult } = require('./report')

const COUNT = Number(process.env.BENCH_STATEMENTS || 50000)
const REPEAT = Number(process.env.BENCH_REPEAT || 3)
const ENGINE = process.env.BENCH_ENGINE || 'sqlite'
const WAYS = (process.env.BENCH_BULK_WAYS || 'raw,import,api').split(',').map((w) => w.trim()).filter(Boolean)
const AUTHORITY = { objectType: 'Agent', name: 'source-lms', account: { homePage: 'http://lms.example.com', name: 'source-lms' } }
const API_BATCH = 100
const API_CONNECTIONS = 10
const HTTP_PART = 200000
const AUTH = 'Basic ' + Buffer.from('bench:bench-secret').toString('base64') // bench/lrs-process.js's bootstrap credential
const ROOT = path.join(__dirname, '..')

async function openRaw (store) {
  const storage = openStorage(loadConfig({ ...store.lrsEnv, LRS_LOG_LEVEL: 'warn' }), createLogger({ logLevel: 'warn' }))
  await storage.ready
  return storage
}

async function runRaw (file, count, engine) {
  const store = await startStore(engine)
  const storage = await openRaw(store)
  try {
    // Only the inserts are timed: the records are made between them (they
    // were all made first when the file was one string in memory).
    let nanos = 0n
    for await (const lines of lineChunks(file, 1000)) {
      const records = lines.map((l) => {
        const s = JSON.parse(l)
        const r = toRecord(s, { authority: s.authority, xapiVersion: '1.0.3' })
        r.stored = new Date(s.stored)
        return r
      })
      const start = process.hrtime.bigint()
      await storage.statements.insertStored(records)
      nanos += process.hrtime.bigint() - start
    }
    const seconds = Number(nanos) / 1e9
    return { statementsPerSec: count / seconds, seconds }
  } finally {
    await storage.close()
    await store.stop()
  }
}

// The anonymous memory of process `pid` (what it holds itself; the store's
// pages it maps are the file's) every second until stop(): { peakMiB,
// firstQuarterMiB, lastQuarterMiB } (medians of the first and last quarter
// of the samples: equal when memory stays flat).
function sampleMemory (pid) {
  const samples = []
  const timer = setInterval(() => {
    try {
      const m = /RssAnon:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
      if (m) samples.push(Number(m[1]) / 1024)
    } catch {}
  }, 1000)
  return {
    stop () {
      clearInterval(timer)
      if (!samples.length) return null
      const quarter = Math.max(1, Math.floor(samples.length / 4))
      return { peakMiB: Math.round(Math.max(...samples)), firstQuarterMiB: Math.round(percentile(samples.slice(0, quarter), 50)), lastQuarterMiB: Math.round(percentile(samples.slice(-quarter), 50)), samples: samples.length }
    }
  }
}

async function runImport (file, count, engine) {
  const store = await startStore(engine)
  // the import's checkpoints: the store's folder, or one of its own on MongoDB
  const dataDir = store.dataDir || fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-bench-import-'))
  try {
    const child = spawn(process.execPath, ['--max-semi-space-size=64', path.join(ROOT, 'bin/lrs.js'), 'import', file], { env: { ...process.env, ...store.lrsEnv, LRS_DATA_DIR: dataDir, LRS_LOG_LEVEL: 'warn' } })
    let out = ''
    child.stdout.on('data', (d) => { out += d })
    const started = process.hrtime.bigint()
    const memory = sampleMemory(child.pid)
    const code = await new Promise((resolve) => child.on('exit', resolve))
    const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9
    if (code !== 0) throw new Error(`import exited with ${code}: ${out}`)
    // The CLI's own timing starts when the store is open, like the raw run's.
    const m = out.match(/(\d+) statements in ([\d.]+) s/)
    const stored = await store.count()
    if (stored !== count) throw new Error(`import stored ${stored} of ${count}`)
    return { statementsPerSec: Number(m[1]) / Number(m[2]), seconds: Number(m[2]), wallSeconds, memory: memory.stop() }
  } finally {
    await store.stop()
    if (!store.dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

// A bulk client as the API wants one: API_CONNECTIONS requests in flight,
// and a 429 (the LRS shedding load) waited out for its Retry-After and sent
// again, so every statement is stored and the waits count in the rate.
// (autocannon cannot send a refused body again.)
async function postAll (url, bodies) {
  const headers = { 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3', Authorization: AUTH }
  let refused = 0
  const loop = async () => {
    // an async generator answers concurrent next() calls one after the other
    for (let next = await bodies.next(); !next.done; next = await bodies.next()) {
      const body = next.value
      for (;;) {
        const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(60000) })
        await res.arrayBuffer()
        if (res.status === 200) break
        if (res.status !== 429) throw new Error(`API: a request got ${res.status}`)
        refused++
        const wait = Math.min(5, Number(res.headers.get('retry-after')) || 1)
        await new Promise((resolve) => setTimeout(resolve, wait * 1000))
      }
    }
  }
  await Promise.all(Array.from({ length: API_CONNECTIONS }, loop))
  return refused
}

async function runApi (file, count, engine) {
  const store = await startStore(engine)
  const lrs = await startLrs({ store })
  try {
    const bodies = (async function * () {
      for await (const lines of lineChunks(file, API_BATCH)) yield '[' + lines.join(',') + ']'
    })()
    const start = process.hrtime.bigint()
    const refused = await postAll(lrs.url + '/xapi/statements', bodies)
    const seconds = Number(process.hrtime.bigint() - start) / 1e9
    const stored = await store.count()
    if (stored !== count) throw new Error(`API: ${stored} of ${count} statements stored`)
    return { statementsPerSec: count / seconds, seconds, refusedAndSentAgain: refused }
  } finally {
    await lrs.stop()
    await store.stop()
  }
}

async function runHttpImport (file, count, engine) {
  const store = await startStore(engine)
  const lrs = await startLrs({ store })
  const headers = { 'Content-Type': 'application/x-ndjson', Authorization: AUTH }
  try {
    const chunks = lineChunks(file, 1000)
    let next = await chunks.next()
    const start = process.hrtime.bigint()
    let parts = 0
    while (!next.done) {
      // one request: up to HTTP_PART lines, read from the file as they are sent
      const body = Readable.from((async function * () {
        for (let sent = 0; !next.done && sent < HTTP_PART; sent += next.value.length, next = await chunks.next()) yield next.value.join('\n') + '\n'
      })())
      const res = await fetch(lrs.url + '/admin/statements/import', { method: 'POST', headers, body, duplex: 'half' })
      const answer = await res.json()
      if (res.status !== 200 || answer.rejected) throw new Error(`HTTP import: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`)
      parts++
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9
    const stored = await store.count()
    if (stored !== count) throw new Error(`HTTP import: ${stored} of ${count} statements stored`)
    return { statementsPerSec: count / seconds, seconds, requests: parts }
  } finally {
    await lrs.stop()
    await store.stop()
  }
}

// Returns { runs: { raw, import, api, http }, summary } (rates in statements/s).
// `ways`: which of raw, import and api run (BENCH_BULK_WAYS, e.g. "import"
// for ten million through the import alone).
async function bulkLoad ({ count = COUNT, repeat = REPEAT, engine = ENGINE, ways = WAYS, onRun = () => {} } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-bench-bulk-'))
  const file = path.join(dir, 'statements.ndjson')
  const run = { raw: runRaw, import: runImport, api: runApi, http: runHttpImport }
  try {
    const start = Date.now() - count
    await writeExportFile(file, { count, authority: AUTHORITY, storedOf: (i) => new Date(start + i) })
    const runs = { raw: [], import: [], api: [], http: [] }
    // Each run starts with the page cache flushed: the previous run's
    // files (deleted, but still being written back) would otherwise compete
    // with this run's fsyncs.
    const clean = () => execFileSync('sync')
    for (let r = 0; r < repeat; r++) {
      for (const way of ways) {
        clean()
        runs[way].push(await run[way](file, count, engine))
      }
      onRun(r, { raw: runs.raw[r] || null, import: runs.import[r] || null, api: runs.api[r] || null, http: runs.http[r] || null })
    }
    const rate = (k) => runs[k].length ? percentile(runs[k].map((x) => x.statementsPerSec), 50) : null
    const summary = { raw: rate('raw'), import: rate('import'), api: rate('api'), http: rate('http') }
    summary.importVsRaw = summary.import && summary.raw ? summary.import / summary.raw : null
    summary.importVsApi = summary.import && summary.api ? summary.import / summary.api : null
    return { engine, statements: count, repeat, ways, bytesPerStatement: Math.round(fs.statSync(file).size / count), runs, summary }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

function summaryLine ({ summary: s }) {
  const r = (x) => (x === null ? '-' : x.toFixed(0))
  return `median: raw ${r(s.raw)} st/s, import ${r(s.import)} st/s, POST /statements ${r(s.api)} st/s, POST /admin/statements/import ${r(s.http)} st/s; ` +
    `import/raw ${s.importVsRaw === null ? '-' : (s.importVsRaw * 100).toFixed(0)} %, import/API ${s.importVsApi === null ? '-' : s.importVsApi.toFixed(2)} x`
}

function runLine (x) {
  return [
    x.raw && `raw ${x.raw.statementsPerSec.toFixed(0)} st/s`,
    x.import && `import ${x.import.statementsPerSec.toFixed(0)} st/s (wall ${x.import.wallSeconds.toFixed(1)} s${x.import.memory ? `, memory peak ${x.import.memory.peakMiB} MiB, first quarter ${x.import.memory.firstQuarterMiB}, last ${x.import.memory.lastQuarterMiB}` : ''})`,
    x.api && `api ${x.api.statementsPerSec.toFixed(0)} st/s`,
    x.http && `http import ${x.http.statementsPerSec.toFixed(0)} st/s (${x.http.requests} requests)`
  ].filter(Boolean).join(', ')
}

async function main () {
  process.stdout.write(`${ENGINE}: ${COUNT} statements, ${REPEAT} alternating repetitions of ${WAYS.join(', ')}\n`)
  const result = await bulkLoad({
    onRun: (r, x) => process.stdout.write(`  #${r + 1}: ${runLine(x)}\n`)
  })
  process.stdout.write(summaryLine(result) + '\n')
  const out = { date: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version }, ...result }
  process.stdout.write(`wrote ${path.relative(process.cwd(), saveResult('bulk-load', out))}\n`)
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`bench failed: ${err.stack || err.message}\n`)
    process.exit(1)
  })
}

module.exports = { bulkLoad, runLine }
