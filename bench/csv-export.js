'use strict'

// How fast GET /admin/statements/export?format=csv writes rows (issue 57
// item 3 asks ≥ 50,000 rows/s). A fresh SQLite store is filled through the
// LRS's own import (`lrs import` of an export-like file of the campus
// profile, bench/export-file.js), then the LRS runs the README way (PM2,
// lrs-process.js) and the file is fetched BENCH_REPEAT times each way:
//   csv          the default columns (statement-csv.js DEFAULT_FIELDS)
//   csv-all      every named column and one extension of the context
//   ndjson       the NDJSON export of the same statements, for comparison
// Rows/s is rows read by the client over the wall time from the request to
// the last byte; the median of the runs is reported, with the peak
// resident memory of the LRS's workers while they ran (memory flat: the
// export reads pages of 1,000). Prints a line per run; writes
// bench/results/csv-export-*.json.
//
//   node bench/csv-export.js                              (~2 min at 200,000)
//   BENCH_STATEMENTS=20000 BENCH_REPEAT=1 node bench/csv-export.js   (quick)

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { writeExportFile } = require('./export-file')
const { describeProfile } = require('./statement-generator')
const { startLrs, rssMiB } = require('./lrs-process')
const { startStore } = require('./store')
const { median, saveResult } = require('./report')
const { FIELDS } = require('../src/transfer/statement-csv')

const ROOT = path.join(__dirname, '..')
const COUNT = Number(process.env.BENCH_STATEMENTS || 200000)
const REPEAT = Number(process.env.BENCH_REPEAT || 3)
const AUTH = 'Basic ' + Buffer.from('bench:bench-secret').toString('base64')
const AUTHORITY = { objectType: 'Agent', name: 'source-lms', account: { homePage: 'http://lms.example.com', name: 'source-lms' } }
const ALL = [...Object.keys(FIELDS), 'ext:http://lms.example.com/xapi/extensions/session-id']
const WAYS = {
  csv: '?format=csv',
  'csv-all': `?format=csv&lang=en-US&voided=include&fields=${encodeURIComponent(ALL.join(','))}`,
  ndjson: ''
}

// `lrs import` of `file` into the store (the checkpoints in its folder).
async function importFile (store, file) {
  const child = spawn(process.execPath, ['--max-semi-space-size=64', path.join(ROOT, 'bin/lrs.js'), 'import', file], { env: { ...process.env, ...store.lrsEnv, LRS_LOG_LEVEL: 'warn' } })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  child.stderr.on('data', (d) => { out += d })
  const code = await new Promise((resolve) => child.on('exit', resolve))
  if (code !== 0) throw new Error(`import exited with ${code}: ${out}`)
  const stored = await store.count()
  if (stored !== COUNT) throw new Error(`import stored ${stored} of ${COUNT}`)
}

// One export read to its end: rows (lines after a CSV's header), bytes,
// seconds, and the workers' peak RSS sampled every 100 ms meanwhile.
async function fetchExport (lrs, query, csv) {
  const pids = lrs.workerPids()
  let peak = rssMiB(pids)
  const sampler = setInterval(() => { peak = Math.max(peak, rssMiB(pids)) }, 100)
  const started = process.hrtime.bigint()
  try {
    const res = await fetch(lrs.url + '/admin/statements/export' + query, { headers: { Authorization: AUTH } })
    if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`)
    const newline = 10
    let lines = 0
    let bytes = 0
    for await (const chunk of res.body) {
      bytes += chunk.length
      for (let k = chunk.indexOf(newline); k !== -1; k = chunk.indexOf(newline, k + 1)) lines++
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    const rows = csv ? lines - 1 : lines
    return { rows, bytes, seconds, rowsPerSec: Math.round(rows / seconds), workersPeakRssMiB: Math.round(peak) }
  } finally {
    clearInterval(sampler)
  }
}

async function main () {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-bench-csv-'))
  const file = path.join(dir, 'statements.ndjson')
  const store = await startStore('sqlite')
  let lrs = null
  try {
    const start = Date.now() - COUNT - 3600e3
    await writeExportFile(file, { count: COUNT, authority: AUTHORITY, storedOf: (i) => new Date(start + i) })
    const importStarted = Date.now()
    await importFile(store, file)
    process.stdout.write(`${COUNT} statements imported in ${((Date.now() - importStarted) / 1000).toFixed(1)} s\n`)
    fs.rmSync(dir, { recursive: true, force: true })

    lrs = await startLrs({ store })
    const workersIdleRssMiB = Math.round(rssMiB(lrs.workerPids()))
    const runs = Object.fromEntries(Object.keys(WAYS).map((w) => [w, []]))
    // alternating, so that a slow moment of the machine falls on each way alike
    for (let r = 0; r < REPEAT; r++) {
      for (const [way, query] of Object.entries(WAYS)) {
        const run = await fetchExport(lrs, query, way !== 'ndjson')
        if (run.rows !== COUNT) throw new Error(`${way}: ${run.rows} rows of ${COUNT}`)
        runs[way].push(run)
        process.stdout.write(`${way} run ${r + 1}: ${run.rowsPerSec} rows/s (${run.seconds.toFixed(2)} s, ${(run.bytes / 1e6).toFixed(1)} MB, workers peak ${run.workersPeakRssMiB} MiB)\n`)
      }
    }
    const summary = Object.fromEntries(Object.entries(runs).map(([way, list]) => [way, {
      rowsPerSecMedian: median(list.map((x) => x.rowsPerSec)),
      bytesPerRow: Math.round(list[0].bytes / COUNT),
      workersPeakRssMiB: Math.max(...list.map((x) => x.workersPeakRssMiB))
    }]))
    const result = {
      kind: 'csv-export',
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0].model, memGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadavg: os.loadavg() },
      engine: 'sqlite',
      profile: describeProfile(),
      statements: COUNT,
      repeat: REPEAT,
      queries: WAYS,
      workersIdleRssMiB,
      summary,
      runs
    }
    const out = saveResult('csv-export', result)
    for (const [way, s] of Object.entries(summary)) process.stdout.write(`${way}: median ${s.rowsPerSecMedian} rows/s, ${s.bytesPerRow} bytes a row, workers peak ${s.workersPeakRssMiB} MiB (idle ${workersIdleRssMiB})\n`)
    process.stdout.write(`results: ${out}\n`)
  } finally {
    if (lrs) await lrs.stop()
    await store.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
