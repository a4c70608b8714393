'use strict'

// `pm2 reload` under load: workers are replaced one by one while clients
// post statements; no request may fail and every acknowledged statement must
// be stored. Bounded in time; everything on 127.0.0.1; stops by itself.
//
//   node bench/reload.js              (about 30 s)

const fs = require('node:fs')
const path = require('node:path')
const { execFile } = require('node:child_process')
const { promisify } = require('node:util')

const execFileAsync = promisify(execFile)
const { MongoClient } = require('mongodb')
const { startDatabase, startLrs } = require('./lrs-process')
const { startLoad, missingIds } = require('./load-client')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const PM2 = path.join(__dirname, '..', 'node_modules', 'pm2', 'bin', 'pm2')

async function main () {
  const db = await startDatabase()
  const dbName = 'reload'
  const lrs = await startLrs({ mongodbUri: db.uri, dbName, env: { LRS_LOG_LEVEL: process.env.LRS_LOG_LEVEL || 'warn' } })
  const before = lrs.workerPids()
  const load = startLoad({ url: lrs.url, auth: 'bench:bench-secret', connections: 20, batch: 10 })
  let reloadOutput = ''
  try {
    await sleep(4000)
    // Asynchronously: a synchronous exec would freeze this process's load
    // clients during the reload and count their stalls as failures.
    reloadOutput = (await execFileAsync(process.execPath, [PM2, 'reload', 'lrs'], { env: { ...process.env, PM2_HOME: lrs.pm2Home }, encoding: 'utf8', timeout: 120000 })).stdout
    await sleep(4000)
  } finally {
    await load.stop()
  }
  const after = lrs.workerPids()
  const client = new MongoClient(db.uri)
  const missing = await missingIds(client.db(dbName).collection('statements'), load.acked)
  await client.close()
  await lrs.stop()
  await db.stop()

  const failed = Object.entries(load.outcomes).filter(([k]) => k !== '200').reduce((n, [, v]) => n + v, 0)
  const result = { date: new Date().toISOString(), workersBefore: before, workersAfter: after, acknowledged: load.acked.length, missing: missing.length, outcomes: load.outcomes, networkErrors: load.errorsSeen, failedRequests: failed, reloadOutput: reloadOutput.split('\n').filter((l) => /reload|Applying|✓/i.test(l)) }
  process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true })
  fs.writeFileSync(path.join(__dirname, 'results', `reload-${result.date.replace(/[:.]/g, '-')}.json`), JSON.stringify(result, null, 2))
  const ok = missing.length === 0 && failed === 0 && before.every((pid) => !after.includes(pid))
  process.stdout.write(`${ok ? 'PASS' : 'FAIL'}: ${load.acked.length} acknowledged, ${missing.length} missing, ${failed} failed requests, workers ${before.join(',')} -> ${after.join(',')}\n`)
  process.exit(ok ? 0 : 1)
}

main().catch((err) => {
  process.stderr.write(`reload run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
