'use strict'

// Locates (or builds once per machine) the FerretDB v1.24 binary used as the
// embedded database when MONGODB_URI is unset. MongoDB cannot be installed on
// our machines, so FerretDB with its SQLite backend is the portable stand-in.
//
// `go install ...@v1.24.0` is refused by the module proxy (it will not list the
// versions), so we build through a throwaway module that requires FerretDB,
// vendors it and stamps the version file the build expects.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')

const FERRETDB_VERSION = 'v1.24.0'
const PACKAGE = 'github.com/FerretDB/FerretDB/cmd/ferretdb'

function cacheDir () {
  const base = process.env.LRS_CACHE_DIR || path.join(os.homedir(), '.cache', 'xapi-lrs')
  return path.join(base, `ferretdb-${FERRETDB_VERSION}`)
}

function binaryPath () {
  return process.env.FERRETDB_BIN || path.join(cacheDir(), 'ferretdb')
}

function buildFerretDB ({ log = () => {} } = {}) {
  const target = binaryPath()
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ferretdb-build-'))
  log(`building FerretDB ${FERRETDB_VERSION} in ${work} (about 2 minutes, once per machine)`)
  fs.writeFileSync(path.join(work, 'go.mod'),
    `module ferretdbbuild\n\ngo 1.22\n\nrequire github.com/FerretDB/FerretDB ${FERRETDB_VERSION}\n`)
  fs.writeFileSync(path.join(work, 'tools.go'),
    `//go:build tools\n\npackage tools\n\nimport _ "${PACKAGE}"\n`)
  const run = (args) => execFileSync('go', args, { cwd: work, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, GOFLAGS: '-buildvcs=false' } })
  run(['mod', 'tidy'])
  run(['mod', 'vendor'])
  fs.writeFileSync(path.join(work, 'vendor/github.com/FerretDB/FerretDB/build/version/version.txt'), FERRETDB_VERSION + '\n')
  fs.mkdirSync(path.dirname(target), { recursive: true })
  const tmpTarget = `${target}.${process.pid}.tmp`
  run(['build', '-mod=vendor', '-o', tmpTarget, PACKAGE])
  fs.renameSync(tmpTarget, target) // atomic: a concurrent reader never sees half a binary
  fs.rmSync(work, { recursive: true, force: true })
  return target
}

function ensureFerretDB (opts) {
  const target = binaryPath()
  if (fs.existsSync(target)) return target
  return buildFerretDB(opts)
}

module.exports = { ensureFerretDB, binaryPath, FERRETDB_VERSION }

if (require.main === module) {
  process.stdout.write(ensureFerretDB({ log: (m) => process.stderr.write(m + '\n') }) + '\n')
}
