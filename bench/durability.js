'use strict'

// Durability under failure: load the LRS (pm2 cluster, the README way)
// with statements of known ids and kill -9 each kind of process in turn:
// an HTTP worker; where the data is written (on SQLite the host's writer
// process, on FerretDB the database server, started again on the same
// data); and on SQLite last the PM2 daemon itself, with every process
// under it gone, then a new LRS on the same store. Every statement
// acknowledged with 200 must then be found by id and by an agent query
// through the LRS. Bounded in time; everything on 127.0.0.1; stops by
// itself.
//
//   node bench/durability.js                         (about 45 s; BENCH_ENGINE=sqlite|ferretdb)

const fs = require('node:fs')
const { startLrs } = require('./lrs-process')
const { startStore } = require('./store')
const { startLoad } = require('./load-client')
const { saveResult } = require('./report')

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const AUTH = 'bench:bench-secret'
const AGENTS_CHECKED = 10

const alive = (pid) => fs.existsSync(`/proc/${pid}`)

async function firstAckAfter (load, killedAt) {
  while (load.lastOk < killedAt && Date.now() - killedAt < 60000) await sleep(100)
  return load.lastOk >= killedAt ? load.lastOk - killedAt : null
}

async function get (url, path) {
  const res = await fetch(url + '/xapi' + path, { headers: { 'X-Experience-API-Version': '1.0.3', Authorization: 'Basic ' + Buffer.from(AUTH).toString('base64') } })
  return { status: res.status, body: res.status === 200 ? await res.json() : null }
}

// Each acknowledged id by statementId, and every one of the statements of
// AGENTS_CHECKED actors through the agent filter, all pages.
async function checkThroughLrs (url, load) {
  let missingById = 0
  for (const id of load.acked) if ((await get(url, `/statements?statementId=${id}`)).status !== 200) missingById++
  const byActor = new Map()
  for (const id of load.acked) {
    const key = JSON.stringify(load.actorOf.get(id))
    if (!byActor.has(key)) byActor.set(key, new Set())
    byActor.get(key).add(id)
  }
  let missingByAgent = 0
  let checked = 0
  for (const [actor, ids] of [...byActor].slice(0, AGENTS_CHECKED)) {
    const found = new Set()
    let page = await get(url, `/statements?agent=${encodeURIComponent(actor)}&limit=100`)
    for (;;) {
      for (const s of page.body.statements) found.add(s.id)
      if (!page.body.more) break
      page = await get(url, page.body.more.replace(/^\/xapi/, ''))
    }
    for (const id of ids) if (!found.has(id)) missingByAgent++
    checked += ids.size
  }
  return { missingById, missingByAgent, checkedByAgent: checked }
}

async function main () {
  const store = await startStore()
  let lrs = await startLrs({ store })
  const events = []
  const load = startLoad({ url: lrs.url, auth: AUTH, connections: 20, batch: 10 })
  const progress = setInterval(() => process.stderr.write(`acked ${load.acked.length} ${JSON.stringify(load.outcomes)}\n`), 2000)
  const kill = async (what, pids) => {
    const killedAt = Date.now()
    for (const pid of pids) process.kill(pid, 'SIGKILL')
    const event = { at: new Date(killedAt).toISOString(), event: `kill -9 ${what} (${pids.join(', ')})`, ackedSoFar: load.acked.length }
    events.push(event)
    event.firstAckMsAfter = await firstAckAfter(load, killedAt)
    await sleep(4000)
  }
  try {
    await sleep(4000)
    await kill('an HTTP worker', lrs.workerPids().slice(0, 1))
    if (store.kill) {
      const killedAt = Date.now()
      const dbPid = await store.kill()
      events.push({ at: new Date(killedAt).toISOString(), event: `kill -9 database ${dbPid}`, ackedSoFar: load.acked.length, firstAckMsAfter: await firstAckAfter(load, killedAt) })
      await sleep(4000)
    } else {
      await kill('the SQLite writer process', [lrs.writerPid()])
      // PM2 itself: its workers leave with it (their IPC channel closes),
      // and so does the writer; what was acknowledged must be in the file.
      const everything = [lrs.pid, ...lrs.workerPids(), lrs.writerPid()].filter(Boolean)
      process.kill(lrs.pid, 'SIGKILL')
      events.push({ at: new Date().toISOString(), event: `kill -9 the PM2 daemon (${lrs.pid})`, ackedSoFar: load.acked.length })
      const deadline = Date.now() + 15000
      while (everything.some(alive) && Date.now() < deadline) await sleep(100)
      events.push({ at: new Date().toISOString(), event: 'processes left behind by the PM2 daemon', pids: everything.filter(alive) })
    }
  } finally {
    await load.stop()
    clearInterval(progress)
  }
  if (!store.kill) {
    await lrs.stop() // the killed one's PM2 home, which nothing removes otherwise
    lrs = await startLrs({ store }) // what a container restart does
  }
  process.stderr.write(`load stopped; checking ${load.acked.length} acknowledged ids\n`)
  const throughLrs = await checkThroughLrs(lrs.url, load)
  await lrs.stop()
  const missing = load.acked.length - await store.countIds(load.acked)
  const stored = await store.count()
  await store.stop()

  const result = { date: new Date().toISOString(), engine: store.engine, acknowledged: load.acked.length, stored, missing, ...throughLrs, outcomes: load.outcomes, events }
  process.stdout.write(JSON.stringify(result, null, 2) + '\n')
  saveResult('durability', result)
  const serverErrors = Object.entries(load.outcomes).filter(([k]) => k.startsWith('5') && k !== '503').reduce((n, [, v]) => n + v, 0)
  const pass = missing === 0 && throughLrs.missingById === 0 && throughLrs.missingByAgent === 0
  process.stdout.write(`${pass ? 'PASS' : 'FAIL'}: ${load.acked.length} acknowledged, ${missing} missing from the store, ${throughLrs.missingById} not found by id, ${throughLrs.missingByAgent} of ${throughLrs.checkedByAgent} not found by agent, ${serverErrors} non-503 5xx\n`)
  process.exit(pass ? 0 : 1)
}

main().catch((err) => {
  process.stderr.write(`durability run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
