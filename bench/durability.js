'use strict'

// Durability under failure: load the LRS (pm2 cluster) with statements of
// known ids, kill -9 a worker, then kill -9 where the data lives — every
// worker at once on SQLite (the database is in their processes), the
// database server on FerretDB (started again on the same data) — and check
// that every statement acknowledged with 200 is stored. Bounded in time;
// everything on 127.0.0.1; stops by itself.
//
//   node bench/durability.js                         (about 40 s; BENCH_ENGINE=sqlite|ferretdb)

const { startLrs } = require('./lrs-process')
const { startStore } = require('./store')
const { startLoad } = require('./load-client')
const { saveResult } = require('./report')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

async function main () {
  const store = await startStore()
  const lrs = await startLrs({ store })
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
    if (store.kill) {
      const dbPid = await store.kill()
      events.push({ at: new Date(killedAt).toISOString(), event: `kill -9 database ${dbPid}`, ackedSoFar: load.acked.length })
    } else {
      const workers = lrs.workerPids()
      for (const pid of workers) process.kill(pid, 'SIGKILL')
      events.push({ at: new Date(killedAt).toISOString(), event: `kill -9 every worker at once (${workers.join(', ')}): the database file's writers`, ackedSoFar: load.acked.length })
    }
    while (load.lastOk < killedAt && Date.now() - killedAt < 60000) await sleep(100)
    events.push({ at: new Date().toISOString(), event: 'first acknowledgement after the kill', msAfterKill: load.lastOk >= killedAt ? load.lastOk - killedAt : null })
    await sleep(5000)
  } finally {
    await load.stop()
    clearInterval(progress)
  }
  process.stderr.write('load stopped; checking every acknowledged id\n')
  await lrs.stop()
  const missing = load.acked.length - await store.countIds(load.acked)
  const stored = await store.count()
  await store.stop()

  const result = { date: new Date().toISOString(), engine: store.engine, acknowledged: load.acked.length, stored, missing, outcomes: load.outcomes, events }
  process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  saveResult('durability', result)
  const serverErrors = Object.entries(load.outcomes).filter(([k]) => k.startsWith('5') && k !== '503').reduce((n, [, v]) => n + v, 0)
  process.stdout.write(`${missing === 0 ? 'PASS' : 'FAIL'}: ${load.acked.length} acknowledged, ${missing} missing, ${serverErrors} non-503 5xx\n`)
  process.exit(missing === 0 ? 0 : 1)
}

main().catch((err) => {
  process.stderr.write(`durability run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
