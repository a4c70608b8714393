'use strict'

// `npm test`: the whole suite with node:test, once per storage engine
// against a real database: `sqlite` (a fresh file per LRS a test starts)
// and `mongodb` (FerretDB 1.24 started here in a temporary folder, as the
// MongoDB-wire stand-in; or a real MongoDB when MONGODB_URI is set).
// LRS_TEST_ENGINES picks (default "sqlite,mongodb"); file arguments run
// only those files.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { startFerretDB } = require('../tools/ferretdb')
const { freePort } = require('../tools/free-port')

const ENGINES = (process.env.LRS_TEST_ENGINES || 'sqlite,mongodb').split(',').map((e) => e.trim()).filter(Boolean)

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

function runSuite (engine, env, files) {
  process.stdout.write(`\n# storage engine: ${engine}\n`)
  // its own process group, so that stopping it stops the LRS servers and
  // CLIs its tests started too
  const child = spawn(process.execPath, ['--test', '--test-concurrency=2', `--test-timeout=${TEST_TIMEOUT_MS}`, ...files], { stdio: 'inherit', detached: true, env: { ...process.env, ...env, LRS_TEST_ENGINE: engine } })
  const stop = () => { try { process.kill(-child.pid, 'SIGKILL') } catch {} }
  const interrupted = () => { stop(); process.exit(130) }
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted)
  const watchdog = setTimeout(() => {
    process.stdout.write(`\n# ${engine}: the suite ran past ${SUITE_TIMEOUT_MS / 60000} minutes; stopped\n`)
    stop()
  }, SUITE_TIMEOUT_MS)
  return new Promise((resolve) => child.on('exit', (c) => {
    clearTimeout(watchdog)
    process.off('SIGINT', interrupted).off('SIGTERM', interrupted)
    resolve(c === null ? 1 : c)
  }))
}

async function main () {
  const unknown = ENGINES.filter((e) => e !== 'sqlite' && e !== 'mongodb')
  if (unknown.length) throw new Error(`LRS_TEST_ENGINES: unknown engine ${unknown.join(', ')} (sqlite, mongodb)`)
  const files = process.argv.slice(2).length ? process.argv.slice(2) : testFiles(__dirname)
  const failed = []
  for (const engine of ENGINES) {
    let db = null
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `lrs-test-${engine}-`))
    const env = { LRS_TEST_DATA_ROOT: dataDir, MONGODB_URI: '' }
    if (engine === 'mongodb') {
      if (process.env.MONGODB_URI) env.MONGODB_URI = process.env.MONGODB_URI
      else {
        db = await startFerretDB({ dataDir: path.join(dataDir, 'ferretdb'), port: await freePort(), timeoutMs: 300000 })
        env.MONGODB_URI = db.uri
      }
    }
    const code = await runSuite(engine, env, files)
    if (code !== 0) failed.push(engine)
    if (db) await db.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  if (failed.length) process.stdout.write(`\n# failed on: ${failed.join(', ')}\n`)
  process.exit(failed.length ? 1 : 0)
}

main().catch((err) => {
  process.stderr.write(`test run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
