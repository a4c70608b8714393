'use strict'

// How long `lrs migrate` takes to move a SQLite store into MongoDB (here
// FerretDB, the stand-in our machines have), and `lrs migrate --verify` to
// compare the two: a store of N statements of a profile
// (statement-generator.js) filled through the engine's write path
// (fill-store.js), then the two commands run as a user runs them.
//
//   node bench/migrate.js [--statements 1000000] [--profile campus] [--store DIR] [--keep]
//
// --store: a SQLite store filled by an earlier run (kept with --keep),
// used as it is.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { parseArgs } = require('node:util')
const { prefill } = require('./fill-store')
const { describeProfile } = require('./statement-generator')
const { startFerretDB } = require('../tools/ferretdb')
const { freePort } = require('../tools/free-port')
const { diesWithParent } = require('../tools/dies-with-parent')

const { values: args } = parseArgs({ options: { statements: { type: 'string', default: '1000000' }, profile: { type: 'string', default: process.env.BENCH_PROFILE || 'campus' }, store: { type: 'string' }, keep: { type: 'boolean', default: false } } })
process.env.BENCH_PROFILE = args.profile
const N = Number(args.statements)
const LRS = path.join(__dirname, '..', 'bin', 'lrs.js')

// `lrs ARGS` as its own process: { code, stdout, seconds }.
function lrs (argv, env) {
  const started = process.hrtime.bigint()
  const child = spawn(...diesWithParent(process.execPath, [LRS, ...argv]), { env: { ...process.env, LRS_LOG_LEVEL: 'error', ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  let stdout = ''
  child.stdout.on('data', (d) => { stdout += d; process.stdout.write(d) })
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, seconds: Number(process.hrtime.bigint() - started) / 1e9 })))
}

async function main () {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-bench-migrate-'))
  const dataDir = args.store || path.join(root, 'sqlite')
  const store = { lrsEnv: { LRS_DATA_DIR: dataDir, MONGODB_URI: '' } }
  let ferret = null
  try {
    let fillRate = null
    if (!args.store) {
      const started = Date.now()
      fillRate = await prefill(store, N, { onProgress: (i) => process.stderr.write(`\rfilled ${i}`) })
      process.stderr.write(`\rfilled ${N} statements in ${((Date.now() - started) / 1000).toFixed(0)} s (${Math.round(fillRate)}/s)\n`)
    }
    ferret = await startFerretDB({ dataDir: path.join(root, 'ferretdb'), port: await freePort() })
    const env = { LRS_DATA_DIR: dataDir, MONGODB_URI: '' }
    const target = ['migrate', '--to-mongodb', ferret.uri, '--db', 'bench']
    const moved = await lrs(target, env)
    if (moved.code !== 0) throw new Error(`lrs migrate exited ${moved.code}`)
    const verified = await lrs([...target, '--verify'], env)
    const statements = Number(/^statements: (\d+) copied/m.exec(moved.stdout)[1])
    const statementSeconds = Number(/^statements: \d+ copied in ([0-9.]+) s/m.exec(moved.stdout)[1])
    const result = {
      profile: describeProfile(args.profile),
      statements,
      fillRate: fillRate && Math.round(fillRate),
      migrate: { seconds: +moved.seconds.toFixed(1), statementPhaseSeconds: statementSeconds, statementsPerSecond: Math.round(statements / statementSeconds) },
      verify: { seconds: +verified.seconds.toFixed(1), exitCode: verified.code, statementsPerSecond: Math.round(statements / verified.seconds) },
      sqliteBytes: fs.statSync(path.join(dataDir, 'lrs.sqlite')).size,
      ferretdbBytes: fs.readdirSync(path.join(root, 'ferretdb')).reduce((n, f) => n + fs.statSync(path.join(root, 'ferretdb', f)).size, 0)
    }
    process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  } finally {
    if (ferret) await ferret.stop()
    if (args.keep) process.stderr.write(`kept ${root}\n`)
    else fs.rmSync(root, { recursive: true, force: true })
  }
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`)
  process.exitCode = 1
})
