'use strict'

// The store as it grows (the Veracity study's question: does ingest stay
// flat to hundreds of millions?). One LRS under PM2 on one store, filled a
// step (a million statements in --full) at a time to `statements`:
//   lrs     every step through POST /statements: batches of 20 on 10
//           connections, back to back, as the soak scenario sends them
//   import  the first and the last step through POST /statements, the
//           steps between through `npm run import` (an export-like file of
//           the step, written as a stream), beside the running LRS
// After each step: the store's bytes on disk per statement, the bytes the
// machine's disks wrote per statement during the step (/proc/diskstats:
// the LRS, its index merges and checkpoints, the import), and every
// GET /statements shape timed while POST /statements keeps arriving at
// `ingestRate` statements/s.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const autocannon = require('autocannon')
const { statementBodies } = require('./statement-generator')
const { startLrs } = require('./lrs-process')
const { startStore } = require('./store')
const { writeExportFile } = require('./export-file')
const { percentile } = require('./report')
const { timeQueries, AUTH } = require('./statement-queries')

const BATCH = 20
const CONNECTIONS = 10
const ROOT = path.join(__dirname, '..')
const IMPORT_AUTHORITY = { objectType: 'Agent', name: 'source-lms', account: { homePage: 'http://lms.example.com', name: 'source-lms' } }

// Bytes written to the machine's whole disks so far (sectors of 512 bytes).
function diskBytesWritten () {
  const disks = new Set(fs.readdirSync('/sys/block').filter((d) => !/^(loop|ram|zram|dm-)/.test(d)))
  let sectors = 0
  for (const line of fs.readFileSync('/proc/diskstats', 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/)
    if (disks.has(f[2])) sectors += Number(f[9])
  }
  return sectors * 512
}

function folderBytes (dir) {
  let n = 0
  for (const f of fs.readdirSync(dir)) n += fs.statSync(path.join(dir, f)).size
  return n
}

// `count` statements through POST /statements from generator index `from`.
async function throughLrs (url, from, count) {
  const nextBody = statementBodies(BATCH, { from })
  const ms = []
  let non2xx = 0
  const started = process.hrtime.bigint()
  await autocannon({
    url: url + '/xapi/statements',
    method: 'POST',
    connections: CONNECTIONS,
    amount: Math.ceil(count / BATCH),
    timeout: 60,
    headers: { 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3', Authorization: AUTH },
    requests: [{ setupRequest: (req) => ({ ...req, body: nextBody() }) }]
  }).on('response', (client, status, bytes, latency) => {
    if (status === 200) ms.push(latency)
    else non2xx++
  })
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  return { statementsPerSec: (ms.length * BATCH) / seconds, writeP50Ms: percentile(ms, 50), writeP99Ms: percentile(ms, 99), non2xx }
}

// `npm run import` of the file, with its peak memory (sampled): anonymous
// memory, what the process holds itself; the pages of the store it maps
// (open.js, mmap_size) are the file's, shared with the page cache.
async function throughImport (store, file) {
  const child = spawn(process.execPath, ['--max-semi-space-size=64', path.join(ROOT, 'bin/lrs.js'), 'import', file], { env: { ...process.env, ...store.lrsEnv, LRS_LOG_LEVEL: 'warn' } })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  child.stderr.on('data', (d) => { out += d })
  let peakKiB = 0
  const sample = setInterval(() => {
    try {
      const m = /RssAnon:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))
      if (m) peakKiB = Math.max(peakKiB, Number(m[1]))
    } catch {}
  }, 500)
  const code = await new Promise((resolve) => child.on('exit', resolve))
  clearInterval(sample)
  if (code !== 0) throw new Error(`import exited with ${code}: ${out.slice(-2000)}`)
  const m = out.match(/(\d+) statements in ([\d.]+) s/)
  if (!m) throw new Error(`import printed no rate: ${out.slice(-2000)}`)
  return { statementsPerSec: Number(m[1]) / Number(m[2]), importPeakRssMiB: Math.round(peakKiB / 1024) }
}

// Returns the steps: { statements, fill, statementsPerSec, writeP50Ms,
// writeP99Ms, bytesPerStatement, writtenBytesPerStatement, queries }.
// `keepStore`: leave the store's folder (its path is returned as keptStore).
async function scaleFill ({ statements, step, fill = 'import', queries = 20, ingestRate = 1000, keepStore = false, onStep = () => {} }) {
  const store = await startStore('sqlite')
  const lrs = await startLrs({ store })
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-bench-scale-'))
  const steps = []
  let generated = 0
  try {
    const last = Math.ceil(statements / step)
    for (let k = 1; k <= last; k++) {
      const count = Math.min(step, statements - generated)
      const viaLrs = fill === 'lrs' || k === 1 || k === last
      const written = diskBytesWritten()
      let result
      if (viaLrs) {
        result = await throughLrs(lrs.url, generated, count)
      } else {
        const file = path.join(tmp, 'step.ndjson')
        // stored: a thousand to a millisecond, in order, just before now
        const start = Date.now() - Math.ceil(count / 1000)
        await writeExportFile(file, { from: generated, count, authority: IMPORT_AUTHORITY, storedOf: (i) => new Date(start + Math.floor(i / 1000)) })
        execFileSync('sync') // the file's pages out before counting the store's
        const before = diskBytesWritten() // the file's own bytes are not the store's
        result = await throughImport(store, file)
        fs.rmSync(file)
        result.writtenBytes = diskBytesWritten() - before
      }
      const writtenBytes = result.writtenBytes ?? diskBytesWritten() - written
      generated += count
      const { shapes, small } = await timeQueries(lrs.url, { queries, rate: ingestRate })
      const stored = await store.countFast()
      const s = {
        statements: stored,
        fill: viaLrs ? 'POST /statements' : 'npm run import',
        statementsPerSec: Math.round(result.statementsPerSec),
        writeP50Ms: result.writeP50Ms ?? null,
        writeP99Ms: result.writeP99Ms ?? null,
        non2xx: result.non2xx ?? null,
        importPeakRssMiB: result.importPeakRssMiB ?? null,
        bytesPerStatement: Math.round(folderBytes(store.dataDir) / stored),
        writtenBytesPerStatement: Math.round(writtenBytes / count),
        queryP50MsMax: Math.max(...Object.values(shapes).map((q) => q.p50Ms)),
        queryP99MsMax: Math.max(...Object.values(shapes).map((q) => q.p99Ms)),
        queries: shapes,
        queriesLimit2: small
      }
      steps.push(s)
      onStep(s)
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
    await lrs.stop()
    if (!keepStore) await store.stop()
  }
  return keepStore ? Object.assign(steps, { keptStore: store.dataDir }) : steps
}

// The shape whose P50 grew most from `a` to `b`: { name, x }.
function largestGrowth (a, b) {
  return Object.keys(a).map((name) => ({ name, x: b[name].p50Ms / a[name].p50Ms })).reduce((m, g) => (g.x > m.x ? g : m))
}

// The figures from the steps (first and last are through the LRS).
function scaleChecks (steps) {
  const lrsSteps = steps.filter((s) => s.fill === 'POST /statements')
  const [first, last] = [steps[0], steps[steps.length - 1]]
  const worstGrowth = largestGrowth(first.queriesLimit2, last.queriesLimit2)
  const worstP99 = Object.entries(last.queries).reduce((a, [name, q]) => (q.p99Ms > a.p99Ms ? { name, p99Ms: q.p99Ms } : a), { name: null, p99Ms: -1 })
  const oneMillion = steps.find((s) => s.statements >= 1e6) || first
  const check = (criterion, pass, detail) => ({ criterion, verdict: pass ? 'pass' : 'fail', detail })
  return [
    check('LRS rate over the last step >= 80 % of the first', last.statementsPerSec >= 0.8 * first.statementsPerSec, `${last.statementsPerSec} against ${first.statementsPerSec} statements/s: ${Math.round((100 * last.statementsPerSec) / first.statementsPerSec)} %`),
    check('write P99 <= 500 ms at every step through the LRS', lrsSteps.every((s) => s.writeP99Ms <= 500), `highest ${Math.max(...lrsSteps.map((s) => s.writeP99Ms))} ms`),
    check('<= 1,000 bytes on disk per statement at the end', last.bytesPerStatement <= 1000, `${last.bytesPerStatement} bytes`),
    check('every query shape P99 <= 50 ms at the end, under ingest', worstP99.p99Ms <= 50, `highest: ${worstP99.name}, ${worstP99.p99Ms} ms`),
    check('query P50 growth from the first step to the last <= 1.5x, pages of 2 (the same rows at every size)', worstGrowth.x <= 1.5, `highest: ${worstGrowth.name}, ${worstGrowth.x.toFixed(2)}x; pages of 100: ${largestGrowth(first.queries, last.queries).name}, ${largestGrowth(first.queries, last.queries).x.toFixed(2)}x`),
    check('bytes written per statement within 2x of their value at 1 M', last.writtenBytesPerStatement <= 2 * oneMillion.writtenBytesPerStatement, `${last.writtenBytesPerStatement} at ${last.statements}, ${oneMillion.writtenBytesPerStatement} at ${oneMillion.statements}`)
  ]
}

module.exports = { scaleFill, scaleChecks, largestGrowth }
