'use strict'

// `npm test`: provisions a real database the way `npm start` does (the
// embedded FerretDB/mongod in a temporary data folder, unless MONGODB_URI
// points at one), then runs every test file with node:test. Each test file
// uses a database of its own.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { startEmbeddedDatabase } = require('../src/storage/embedded/embedded-database')
const { freePort } = require('./helpers/free-port')


function testFiles (dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name)
    if (e.isDirectory()) return e.name === 'helpers' || e.name === 'fixtures' ? [] : testFiles(full)
    return e.name.endsWith('.test.js') ? [full] : []
  }).sort()
}

async function main () {
  let db = null
  let dataDir = null
  if (!process.env.MONGODB_URI) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-test-db-'))
    db = await startEmbeddedDatabase({ dataDir, port: await freePort(), timeoutMs: 300000, stdio: 'ignore' })
    process.env.MONGODB_URI = db.uri
    process.env.LRS_TEST_DB_PID = String(db.pid)
  }
  const files = process.argv.slice(2).length ? process.argv.slice(2) : testFiles(__dirname)
  const child = spawn(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit', env: process.env })
  const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c === null ? 1 : c)))
  if (db) await db.stop()
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  process.exit(code)
}

main().catch((err) => {
  process.stderr.write(`test run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
