'use strict'

// Durability under failure: load the LRS (pm2 cluster) with statements of
// known ids, kill -9 a worker, then kill -9 the database and restart it on
// the same data, and check that every statement acknowledged with 200 is
// stored. Bounded in time; everything on 127.0.0.1; stops by itself.
//
//   node bench/durability.js                      (about 40 s)
//   BENCH_DATABASE=pm2 node bench/durability.js   the README way: no MONGODB_URI,
//     PM2 runs the embedded database (lrs-embedded-db) and restarts it itself

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { MongoClient } = require('mongodb')
const { startEmbeddedDatabase } = require('../src/storage/embedded/embedded-database')
const { startLrs, freePort, childPids, commandLine } = require('./lrs-process')
const { startLoad, missingIds } = require('./load-client')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// The database as the bench runs it itself: killed, then started again on
// the same data after 2 s.
async function ownDatabase ({ dataDir, port }) {
  let db = await startEmbeddedDatabase({ dataDir, port, stdio: 'ignore' })
  return {
    uri: db.uri,
    lrsEnv: { MONGODB_URI: db.uri },
    async kill () {
      const pid = db.pid
      process.kill(pid, 'SIGKILL')
      await new Promise((resolve) => db.child.once('exit', resolve))
      await sleep(2000)
      db = await startEmbeddedDatabase({ dataDir, port, stdio: 'ignore' })
      return pid
    },
    stop: () => db.stop()
  }
}

// The README way: the LRS's PM2 runs the embedded database and brings it
// back by itself after the kill.
async function pm2Database ({ dataDir, port }) {
  let lrs
  const databasePid = () => {
    for (const pid of lrs ? childPids(lrs.pid) : []) {
      if (!commandLine(pid).includes('embedded/run.js')) continue
      const [db] = childPids(pid)
      if (db) return db
    }
    return null
  }
  return {
    uri: `mongodb://127.0.0.1:${port}/`,
    lrsEnv: { MONGODB_URI: '', LRS_DATA_DIR: dataDir, LRS_EMBEDDED_DB_PORT: String(port) },
    attach (started) { lrs = started },
    async kill () {
      const pid = databasePid()
      process.kill(pid, 'SIGKILL')
      return pid
    },
    stop: async () => {}
  }
}

async function main () {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-durability-'))
  const port = await freePort()
  const db = await (process.env.BENCH_DATABASE === 'pm2' ? pm2Database : ownDatabase)({ dataDir, port })
  const dbName = 'durability'
  const lrs = await startLrs({ mongodbUri: db.lrsEnv.MONGODB_URI, dbName, env: { LRS_LOG_LEVEL: process.env.LRS_LOG_LEVEL || 'warn', ...db.lrsEnv } })
  if (db.attach) db.attach(lrs)
  const events = []
  const load = startLoad({ url: lrs.url, auth: 'bench:bench-secret', connections: 20, batch: 10 })
  const progress = setInterval(() => process.stderr.write(`acked ${load.acked.length} ${JSON.stringify(load.outcomes)}\n`), 2000)
  try {
    await sleep(4000)
    const [worker] = lrs.workerPids()
    process.kill(worker, 'SIGKILL')
    events.push({ at: new Date().toISOString(), event: `kill -9 worker ${worker}`, ackedSoFar: load.acked.length })
    await sleep(5000)
    const killedAt = Date.now()
    const dbPid = await db.kill()
    events.push({ at: new Date(killedAt).toISOString(), event: `kill -9 database ${dbPid}`, ackedSoFar: load.acked.length })
    while (load.lastOk < killedAt && Date.now() - killedAt < 60000) await sleep(100)
    events.push({ at: new Date().toISOString(), event: 'first acknowledgement after the kill', msAfterKill: load.lastOk >= killedAt ? load.lastOk - killedAt : null })
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
