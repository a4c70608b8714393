'use strict'

// `pm2 reload all` under load: the SQLite writer process (if any) is
// replaced, then the workers one by one, while clients post statements; no
// request may fail and every acknowledged statement must be stored. Bounded in time; everything on 127.0.0.1; stops by itself.
//
//   node bench/reload.js              (about 30 s)

const path = require('node:path')
const { execFile } = require('node:child_process')
const { promisify } = require('node:util')

const execFileAsync = promisify(execFile)
const { startLrs } = require('./lrs-process')
const { startStore } = require('./store')
const { startLoad } = require('./load-client')
const { saveResult } = require('./report')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const PM2 = path.join(__dirname, '..', 'node_modules', 'pm2', 'bin', 'pm2')

async function main () {
  const store = await startStore()
  const lrs = await startLrs({ store })
  const before = lrs.workerPids()
  const writerBefore = lrs.writerPid()
  const load = startLoad({ url: lrs.url, auth: 'bench:bench-secret', connections: 20, batch: 10 })
  let reloadOutput = ''
  try {
    await sleep(4000)
    // Asynchronously: a synchronous exec would freeze this process's load
    // clients during the reload and count their stalls as failures.
    reloadOutput = (await execFileAsync(process.execPath, [PM2, 'reload', 'all'], { env: { ...process.env, PM2_HOME: lrs.pm2Home }, encoding: 'utf8', timeout: 120000 })).stdout
    await sleep(4000)
  } finally {
    await load.stop()
  }
  const after = lrs.workerPids()
  const writerAfter = lrs.writerPid()
  await lrs.stop()
  const missing = load.acked.length - await store.countIds(load.acked)
  await store.stop()

  const failed = Object.entries(load.outcomes).filter(([k]) => k !== '200').reduce((n, [, v]) => n + v, 0)
  const result = { date: new Date().toISOString(), engine: store.engine, workersBefore: before, workersAfter: after, writerBefore, writerAfter, acknowledged: load.acked.length, missing, outcomes: load.outcomes, networkErrors: load.errorsSeen, failedRequests: failed, reloadOutput: reloadOutput.split('\n').filter((l) => /reload|Applying|✓/i.test(l)) }
  process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  saveResult('reload', result)
  const ok = missing === 0 && failed === 0 && before.every((pid) => !after.includes(pid)) && (writerBefore === null || writerAfter !== writerBefore)
  process.stdout.write(`${ok ? 'PASS' : 'FAIL'}: ${load.acked.length} acknowledged, ${missing} missing, ${failed} failed requests, workers ${before.join(',')} -> ${after.join(',')}${writerBefore ? `, writer ${writerBefore} -> ${writerAfter}` : ''}\n`)
  process.exit(ok ? 0 : 1)
}

main().catch((err) => {
  process.stderr.write(`reload run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
