'use strict'

// Durability under failure: load the LRS (pm2 cluster) with statements of
// known ids, kill -9 a worker, then kill -9 the database and restart it on
// the same data, and check that every statement acknowledged with 200 is
// stored. Bounded in time; everything on 127.0.0.1; stops by itself.
//
//   node bench/durability.js          (about 40 s)

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { MongoClient } = require('mongodb')
const { startEmbeddedDatabase } = require('../src/storage/embedded/embedded-database')
const { startLrs, freePort } = require('./lrs-process')
const { startLoad, missingIds } = require('./load-client')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function main () {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-durability-'))
  const port = await freePort()
  let db = await startEmbeddedDatabase({ dataDir, port, stdio: 'ignore' })
  const dbName = 'durability'
  const lrs = await startLrs({ mongodbUri: db.uri, dbName, env: { LRS_LOG_LEVEL: process.env.LRS_LOG_LEVEL || 'warn' } })
  const events = []
  const load = startLoad({ url: lrs.url, auth: 'bench:bench-secret', connections: 20, batch: 10 })
  const progress = setInterval(() => process.stderr.write(`acked ${load.acked.length} ${JSON.stringify(load.outcomes)}\n`), 2000)
  try {
    await sleep(4000)
    const [worker] = lrs.workerPids()
    process.kill(worker, 'SIGKILL')
    events.push({ at: new Date().toISOString(), event: `kill -9 worker ${worker}`, ackedSoFar: load.acked.length })
    await sleep(5000)
    process.kill(db.pid, 'SIGKILL')
    events.push({ at: new Date().toISOString(), event: `kill -9 database ${db.pid}`, ackedSoFar: load.acked.length })
    await new Promise((resolve) => db.child.once('exit', resolve))
    await sleep(2000)
    db = await startEmbeddedDatabase({ dataDir, port, stdio: 'ignore' })
    const restartedAt = Date.now()
    events.push({ at: new Date().toISOString(), event: 'database restarted', ackedSoFar: load.acked.length })
    while (load.lastOk < restartedAt && Date.now() - restartedAt < 60000) await sleep(100)
    events.push({ at: new Date().toISOString(), event: 'first acknowledgement after restart', msAfterRestart: load.lastOk >= restartedAt ? load.lastOk - restartedAt : null })
    await sleep(5000)
  } finally {
    await load.stop()
    clearInterval(progress)
  }
  process.stderr.write('load stopped; checking every acknowledged id\n')
  const client = new MongoClient(db.uri)
  const missing = await missingIds(client.db(dbName).collection('statements'), load.acked)
  const stored = await client.db(dbName).collection('statements').countDocuments()
  await client.close()
  await lrs.stop()
  await db.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })

  const result = { date: new Date().toISOString(), acknowledged: load.acked.length, stored, missing: missing.length, outcomes: load.outcomes, events }
  process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  fs.mkdirSync(path.join(__dirname, 'results'), { recursive: true })
  fs.writeFileSync(path.join(__dirname, 'results', `durability-${result.date.replace(/[:.]/g, '-')}.json`), JSON.stringify(result, null, 2))
  const serverErrors = Object.entries(load.outcomes).filter(([k]) => k.startsWith('5') && k !== '503').reduce((n, [, v]) => n + v, 0)
  process.stdout.write(`${missing.length === 0 ? 'PASS' : 'FAIL'}: ${load.acked.length} acknowledged, ${missing.length} missing, ${serverErrors} non-503 5xx\n`)
  process.exit(missing.length === 0 ? 0 : 1)
}

main().catch((err) => {
  process.stderr.write(`durability run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
