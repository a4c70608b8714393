'use strict'

// `npm test`: the whole suite with node:test, once per storage engine
// against a real database: `sqlite` (a fresh file per LRS a test starts)
// and `mongodb` (FerretDB 1.24 started here in a temporary folder, as the
// MongoDB-wire stand-in; or a real MongoDB when MONGODB_URI is set).
// LRS_TEST_ENGINES picks (e.g. "sqlite,mongodb"): an engine named there
// must run, and a mongodb run that cannot start FerretDB fails with the
// reason. Unset, the mongodb run is skipped with one line saying how to
// enable it where FerretDB can't be had (no build and no Go to build it),
// so a machine with Node alone runs the sqlite half. File arguments run
// only those files.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { startFerretDB, ferretdbAvailable } = require('../tools/ferretdb')
const { freePort } = require('../tools/free-port')

const ENGINES = (process.env.LRS_TEST_ENGINES || 'sqlite,mongodb').split(',').map((e) => e.trim()).filter(Boolean)
const ENGINES_NAMED = Boolean(process.env.LRS_TEST_ENGINES)

function testFiles (dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name)
    if (e.isDirectory()) return ['helpers', 'fixtures'].includes(e.name) ? [] : testFiles(full)
    return e.name.endsWith('.test.js') ? [full] : []
  }).sort()
}

// A test that hangs fails after TEST_TIMEOUT_MS instead of holding CI
// until its own limit; a whole engine's run is stopped after
// SUITE_TIMEOUT_MS (whatever still runs then is reported as failed).
const TEST_TIMEOUT_MS = 240000
const SUITE_TIMEOUT_MS = 20 * 60000

// Files that time what a person waits for (a page's load in Chromium) run
// after the others, on their own: beside another file's browsers and
// servers on a 2-core machine, their figures were the neighbour's (every
// console page twice as slow while the single sign-on tests ran). So does
// the several-hosts file: three PM2 hosts and a FerretDB of its own took
// the CPU a neighbour's timing needed (the workers' shared verifications
// arrived late: a valid client got 429 once in a clean-clone run).
const ALONE = ['console/page-load.test.js', 'hosts/several-hosts.test.js'].map((f) => path.join(__dirname, f))

let stopSuite = null // stops the suite running now, with what it started

function runSuite (engine, env, files, { concurrency = 2 } = {}) {
  process.stdout.write(`\n# storage engine: ${engine}${concurrency === 1 ? ' (files run on their own)' : ''}\n`)
  // its own process group, so that stopping it stops the LRS servers and
  // CLIs its tests started too
  const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, `--test-timeout=${TEST_TIMEOUT_MS}`, ...files], { stdio: 'inherit', detached: true, env: { ...process.env, ...env, LRS_TEST_ENGINE: engine } })
  const stop = () => { try { process.kill(-child.pid, 'SIGKILL') } catch {} }
  stopSuite = stop
  const watchdog = setTimeout(() => {
    process.stdout.write(`\n# ${engine}: the suite ran past ${SUITE_TIMEOUT_MS / 60000} minutes; stopped\n`)
    stop()
  }, SUITE_TIMEOUT_MS)
  return new Promise((resolve) => child.on('exit', (c) => {
    clearTimeout(watchdog)
    stopSuite = null
    resolve(c === null ? 1 : c)
  }))
}

// The temporary folders of this run: removed however the run ends.
const folders = new Set()
function removeFolders () {
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true })
  folders.clear()
}
process.once('exit', removeFolders)
// Interrupted: the suite's processes are stopped, FerretDB gets SIGTERM
// from the kernel (tools/ferretdb.js), and 'exit' removes the folders.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    if (stopSuite) stopSuite()
    process.exit(130)
  })
}

// Why the mongodb run cannot happen here, or null.
function mongodbUnavailable () {
  if (process.env.MONGODB_URI) return null
  const { ok, reason } = ferretdbAvailable()
  return ok ? null : reason
}

async function runEngine (engine, files) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `lrs-test-${engine}-`))
  folders.add(dataDir)
  let db = null
  try {
    const env = { LRS_TEST_DATA_ROOT: dataDir, MONGODB_URI: '' }
    if (engine === 'mongodb') {
      if (process.env.MONGODB_URI) env.MONGODB_URI = process.env.MONGODB_URI
      else {
        db = await startFerretDB({ dataDir: path.join(dataDir, 'ferretdb'), port: await freePort(), timeoutMs: 300000 })
        env.MONGODB_URI = db.uri
      }
    }
    const together = files.filter((f) => !ALONE.includes(path.resolve(f)))
    const alone = files.filter((f) => ALONE.includes(path.resolve(f)))
    const code = together.length ? await runSuite(engine, env, together) : 0
    const aloneCode = alone.length ? await runSuite(engine, env, alone, { concurrency: 1 }) : 0
    return code || aloneCode
  } catch (err) {
    process.stdout.write(`\n# ${engine}: could not start the run: ${err.message}\n`)
    return 1
  } finally {
    if (db) await db.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
    folders.delete(dataDir)
  }
}

async function main () {
  const unknown = ENGINES.filter((e) => e !== 'sqlite' && e !== 'mongodb')
  if (unknown.length) throw new Error(`LRS_TEST_ENGINES: unknown engine ${unknown.join(', ')} (sqlite, mongodb)`)
  const files = process.argv.slice(2).length ? process.argv.slice(2) : testFiles(__dirname)
  const failed = []
  for (const engine of ENGINES) {
    const unavailable = engine === 'mongodb' && !ENGINES_NAMED && mongodbUnavailable()
    if (unavailable) {
      process.stdout.write(`\n# mongodb run skipped: ${unavailable}. LRS_TEST_ENGINES=sqlite,mongodb makes it required.\n`)
      continue
    }
    if (await runEngine(engine, files) !== 0) failed.push(engine)
  }
  if (failed.length) process.stdout.write(`\n# failed on: ${failed.join(', ')}\n`)
  process.exit(failed.length ? 1 : 0)
}

main().catch((err) => {
  process.stderr.write(`test run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
