'use strict'

// FerretDB 1.24 (SQLite backend): the MongoDB-wire stand-in the `mongodb`
// engine is tested against (MongoDB itself cannot be installed on our
// machines). Not part of the product: the LRS's default engine is SQLite.
//
//   node tools/ferretdb.js      builds the binary once per machine (CI: npm run ferretdb)
//
// `go install ...@v1.24.0` is refused by the module proxy (it will not list
// the versions), so it is built through a throwaway module that requires
// FerretDB, vendors it and stamps the version file the build expects.
// FERRETDB_BIN uses a binary of your own; LRS_CACHE_DIR moves the cache.

const fs = require('node:fs')
const os = require('node:os')
const net = require('node:net')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const { diesWithParent } = require('./dies-with-parent')

const FERRETDB_VERSION = 'v1.24.0'
const PACKAGE = 'github.com/FerretDB/FerretDB/cmd/ferretdb'

function binaryPath () {
  if (process.env.FERRETDB_BIN) return process.env.FERRETDB_BIN
  const base = process.env.LRS_CACHE_DIR || path.join(os.homedir(), '.cache', 'xapi-lrs')
  return path.join(base, `ferretdb-${FERRETDB_VERSION}`, 'ferretdb')
}

function hasGo () {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

// Whether FerretDB can be had here without asking anything: built
// already, or Go is there to build it. { ok, reason }
function ferretdbAvailable () {
  if (fs.existsSync(binaryPath())) return { ok: true }
  if (process.env.FERRETDB_BIN) return { ok: false, reason: `FERRETDB_BIN names no file (${process.env.FERRETDB_BIN})` }
  if (hasGo()) return { ok: true }
  return { ok: false, reason: 'FerretDB is not built and Go is not installed to build it (install Go and run `npm run ferretdb` once, or set MONGODB_URI to a MongoDB)' }
}

function buildFerretDB (target, log) {
  if (!hasGo()) throw new Error(ferretdbAvailable().reason)
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ferretdb-build-'))
  const tmpTarget = `${target}.${process.pid}.tmp`
  try {
    log(`building FerretDB ${FERRETDB_VERSION} in ${work} (about 2 minutes, once per machine)`)
    fs.writeFileSync(path.join(work, 'go.mod'), `module ferretdbbuild\n\ngo 1.22\n\nrequire github.com/FerretDB/FerretDB ${FERRETDB_VERSION}\n`)
    fs.writeFileSync(path.join(work, 'tools.go'), `//go:build tools\n\npackage tools\n\nimport _ "${PACKAGE}"\n`)
    const run = (args) => execFileSync('go', args, { cwd: work, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, GOFLAGS: '-buildvcs=false' } })
    run(['mod', 'tidy'])
    run(['mod', 'vendor'])
    fs.writeFileSync(path.join(work, 'vendor/github.com/FerretDB/FerretDB/build/version/version.txt'), FERRETDB_VERSION + '\n')
    fs.mkdirSync(path.dirname(target), { recursive: true })
    run(['build', '-mod=vendor', '-o', tmpTarget, PACKAGE])
    fs.renameSync(tmpTarget, target) // atomic: a concurrent reader never sees half a binary
    return target
  } finally {
    fs.rmSync(work, { recursive: true, force: true })
    fs.rmSync(tmpTarget, { force: true })
  }
}

function ensureFerretDB ({ log = (m) => process.stderr.write(m + '\n') } = {}) {
  const target = binaryPath()
  return fs.existsSync(target) ? target : buildFerretDB(target, log)
}

function waitForPort (port, { timeoutMs, child }) {
  const deadline = Date.now() + timeoutMs
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`FerretDB exited with code ${child.exitCode}`))
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => { socket.destroy(); resolve() })
      socket.once('error', () => {
        socket.destroy()
        if (Date.now() > deadline) return reject(new Error(`FerretDB not listening on ${port} after ${timeoutMs} ms`))
        setTimeout(attempt, 50)
      })
    }
    attempt()
  })
}

// The command line of a FerretDB keeping its files in `dataDir` and
// listening on `listen` (address:port): { file, args }.
function ferretdbCommand ({ dataDir, listen }) {
  fs.mkdirSync(dataDir, { recursive: true })
  const file = ensureFerretDB()
  const args = ['--handler=sqlite', `--sqlite-url=file:${path.resolve(dataDir)}/`, `--state-dir=${path.resolve(dataDir)}`,
    `--listen-addr=${listen}`, '--debug-addr=-', '--telemetry=disable', '--log-level=error', '--log-format=json']
  return { file, args }
}

async function startFerretDB ({ dataDir, port, timeoutMs = 30000 }) {
  const { file, args } = ferretdbCommand({ dataDir, listen: `127.0.0.1:${port}` })
  // an interrupted test run leaves no server behind
  const child = spawn(...diesWithParent(file, args), { stdio: 'ignore' })
  await waitForPort(port, { timeoutMs, child })
  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    pid: child.pid,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    })
  }
}

module.exports = { startFerretDB, ferretdbAvailable, ferretdbCommand }

if (require.main === module) process.stdout.write(ensureFerretDB() + '\n')
