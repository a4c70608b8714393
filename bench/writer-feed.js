'use strict'

// The host's SQLite writer process alone, fed as N workers feed it: a real
// writer process (src/storage/sqlite/writer-process.js) on a fresh store,
// and in this process N writer clients (writer-client.js), each behind its
// own statement batcher (the workers' group commit), with C closed loops of
// BATCH-statement requests spread over them. The records are built and
// packed once (a worker's work, not the writer's) and sent again under new
// ids. Per worker count: statements/s, the writer process's CPU per
// statement (from /proc; and of its main thread alone, the one that
// commits: the merge thread is another), the bytes it hands to write calls
// per statement (from /proc, wchar: its journal's pages, checkpoints, its
// replies; whole and of its main thread), and what its loop reports (op writerStats):
// statements per transaction, operations (worker writes) per transaction,
// and the share of the time it was busy. Counts alternate over the
// repetitions; the figures are medians.
//
// It answers "how much can one writer take, and does it take less when
// more workers split the same load?" on any machine, without the HTTP
// workers competing for its cores.
//
//   node bench/writer-feed.js [--workers 1,4,16] [--connections 64] [--seconds 8] [--repeat 2] [--batch 20]
//                             [--pool 400000] [--stores 1] [--own-store] [--root <checkout> ...] [--strings <older checkout> ...]

const crypto = require('node:crypto')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { fork } = require('node:child_process')
const { parseArgs } = require('node:util')
const { scormStatement, describeProfile, attemptOf } = require('./statement-generator')
const { storageRecord, qualify } = require('../src/stores/store-keys')
const { cpuSeconds, bytesWritten } = require('./lrs-process')
const { median } = require('./report')
const { toRecord } = require('../src/resources/statements/statement-record')
const { termsOf } = require('../src/storage/sqlite/terms')
const { packBody } = require('../src/storage/sqlite/body-codec')
const { connectWriter } = require('../src/storage/sqlite/writer-client')
const { writerSocketPaths } = require('../src/storage/sqlite/writer-socket')
const { createStatementBatcher } = require('../src/batching/statement-batcher')
const { loadConfig } = require('../src/config')

const ROOT = path.join(__dirname, '..')
const AUTHORITY = { objectType: 'Agent', name: 'bench', account: { homePage: 'http://localhost/lrs', name: 'bench' } }
const POOL = 400000 // ~9 s of the 16-core machine's writer (about 40,000 st/s): a run never comes round

// the figures of a run reported as medians over the repetitions, in this order
const MEDIANS = ['statementsPerSec', 'writerCpuMicrosPerStatement', 'writerMainThreadMicrosPerStatement', 'writerBytesPerStatement', 'writerMainThreadBytesPerStatement', 'statementsPerTransaction', 'operationsPerTransaction', 'writerBusyShare']

const silent = { info () {}, warn () {}, debug () {}, error () {}, fatal () {} }

// `next(known)` gives the pool's records in order; `restart()` goes back to
// the first (each run, on its fresh store); `cameRound()`: whether a run
// went past the last (its figures are then friendlier than the data).
// `stores` > 1: each statement in its learner's store, 1 to `stores` (as
// bench/stores.js spreads them; the stores are made in each run's store).
// `ownStore`: with one store, every statement in store 1, made beside the
// default one (what a store but the default one costs, the spread aside).
function recordPool (size = POOL, { stores = 1, ownStore = false } = {}) {
  const records = []
  for (let i = 0; i < size; i++) {
    const store = stores > 1 ? 1 + attemptOf(i).learner % stores : ownStore ? 1 : 0
    const r = storageRecord(toRecord({ ...scormStatement(i), id: crypto.randomUUID() }, { authority: AUTHORITY, xapiVersion: '1.0.3' }), store)
    records.push({ id: r.id, body: packBody(r.body), voiding: r.voiding, ref: r.ref, timestampFromStored: r.timestampFromStored, attachments: r.attachments, terms: termsOf(r), store })
  }
  let next = 0
  // as a worker sends it (statements.js, forWriter): the terms the writer
  // gave it ids for as their ids, and an id it made (the bench's
  // statements have none)
  const take = (known) => {
    const r = records[next++ % size]
    return { ...r, id: qualify(r.store, crypto.randomUUID()), newId: true, terms: { registration: r.terms.registration !== null, all: r.terms.all.map((t) => known.get(t) || t) } }
  }
  take.stores = stores > 1 || ownStore ? stores : 0
  take.restart = () => { next = 0 }
  take.cameRound = () => next > size
  return take
}

// the node_args ecosystem.config.js gives the writer app of that checkout
function writerNodeArgs (root) {
  const file = require.resolve(path.join(root, 'ecosystem.config.js'))
  delete require.cache[file]
  const app = require(file).apps.find((a) => a.name === 'lrs-writer')
  return (app && app.node_args) || []
}

function startWriterProcess (dataDir, root) {
  const child = fork(path.join(root, 'src/storage/sqlite/writer-process.js'), [], {
    // WRITER_PROFILE_DIR=<dir>: a CPU profile of each writer there (node --cpu-prof)
    execArgv: [...writerNodeArgs(root), ...(process.env.WRITER_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.WRITER_PROFILE_DIR}`] : [])],
    env: { ...process.env, LRS_DATA_DIR: dataDir, LRS_LOG_LEVEL: 'warn', LRS_LOG_FORMAT: 'json', MONGODB_URI: '' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc']
  })
  const ready = new Promise((resolve, reject) => {
    child.once('message', (m) => (m === 'ready' ? resolve() : reject(new Error(`writer said ${m}`))))
    child.once('exit', (code) => reject(new Error(`writer exited with ${code}`)))
  })
  return { child, ready }
}

async function feed ({ workers, connections, seconds, batch, next, root, strings }) {
  const config = loadConfig({ MONGODB_URI: '', LRS_DATA_DIR: os.tmpdir() })
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-writer-feed-'))
  const writer = startWriterProcess(dataDir, root)
  const clients = []
  next.restart()
  try {
    await writer.ready
    for (let w = 0; w < workers; w++) {
      if (w === 0) await makeStores(dataDir, next.stores)
      const client = connectWriter(writerSocketPaths(dataDir), silent, { waitMs: 5000 })
      await client.ready
      const known = new Map() // --strings: never filled, every term goes as its string
      const batcher = createStatementBatcher({
        write: async (groups) => {
          const results = await client.call('storeBatch', groups, { storedMs: Date.now(), forwardTo: [], same: groups.map(() => []) })
          if (!strings) {
            results.forEach((result, g) => {
              let k = 0
              if (result.learned) for (const r of groups[g]) for (const t of r.terms.all) if (typeof t === 'string') known.set(t, result.learned[k++])
            })
          }
          return new Map()
        },
        maxBatch: config.batchMaxStatements,
        maxInFlight: config.maxInFlightStatements,
        maxConcurrentWrites: config.batchConcurrentWrites,
        logger: silent
      })
      clients.push({ client, batcher, known })
    }
    // (a writer from before op writerStats answers an error: no figures)
    const stats = () => clients[0].client.call('writerStats').catch(() => null)
    let stop = false
    let stored = 0
    const loop = async (c) => {
      const { batcher, known } = clients[c % workers]
      while (!stop) {
        const records = []
        for (let i = 0; i < batch; i++) records.push(next(known))
        await batcher.submit(records)
        stored += records.length
      }
    }
    const loops = Array.from({ length: connections }, (_, c) => loop(c))
    await new Promise((resolve) => setTimeout(resolve, 1000)) // warm-up, not counted
    // the writer process's CPU and bytes written, whole and of its main thread (the one that commits)
    const { pid } = writer.child
    const usage = () => ({ cpu: cpuSeconds(pid), main: cpuSeconds(pid, pid), written: bytesWritten(pid), mainWritten: bytesWritten(pid, pid) })
    const s0 = await stats()
    const u0 = usage()
    const n0 = stored
    const t0 = Date.now()
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
    const s1 = await stats()
    const u1 = usage()
    const n1 = stored
    const wall = (Date.now() - t0) / 1000
    stop = true
    await Promise.all(loops)
    const transactions = s1 && s0 ? s1.transactions - s0.transactions : null
    const perTransaction = (k, digits) => transactions ? +((s1[k] - s0[k]) / transactions).toFixed(digits) : null
    return {
      workers,
      connections,
      statementsPerSec: Math.round((n1 - n0) / wall),
      writerCpuMicrosPerStatement: +(((u1.cpu - u0.cpu) / (n1 - n0)) * 1e6).toFixed(1),
      writerCores: +((u1.cpu - u0.cpu) / wall).toFixed(2),
      // its main thread alone, the one that commits (not the merge thread)
      writerMainThreadMicrosPerStatement: +(((u1.main - u0.main) / (n1 - n0)) * 1e6).toFixed(1),
      // what its commits cost in pages: a commit writes every page it
      // changed to the journal, 16 KiB each, however little of it changed
      writerBytesPerStatement: Math.round((u1.written - u0.written) / (n1 - n0)),
      writerMainThreadBytesPerStatement: Math.round((u1.mainWritten - u0.mainWritten) / (n1 - n0)),
      statementsPerTransaction: perTransaction('statements', 0),
      operationsPerTransaction: perTransaction('operations', 1),
      writerBusyShare: transactions ? +((s1.busyMs - s0.busyMs) / (wall * 1000)).toFixed(2) : null,
      poolCameRound: next.cameRound()
    }
  } finally {
    for (const { client } of clients) await client.close()
    writer.child.kill('SIGTERM')
    await new Promise((resolve) => writer.child.once('exit', resolve))
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

// Stores 1..n of a fresh store's writer (their numbers follow creation).
async function makeStores (dataDir, n) {
  if (!n) return
  const client = connectWriter(writerSocketPaths(dataDir), silent, { waitMs: 5000 })
  await client.ready
  for (let i = 1; i <= n; i++) await client.call('storeCreate', { id: `store-${i}`, name: `store-${i}` })
  await client.close()
}

const label = (root, strings) => (path.relative(process.cwd(), root) || '.') + (strings ? ' (terms as strings)' : '')

async function main () {
  const { values } = parseArgs({
    options: {
      workers: { type: 'string', default: '1,4,16' },
      connections: { type: 'string', default: '64' },
      seconds: { type: 'string', default: '8' },
      repeat: { type: 'string', default: '2' },
      batch: { type: 'string', default: '20' },
      pool: { type: 'string', default: String(POOL) },
      // each statement in its learner's store, of this many
      stores: { type: 'string', default: '1' },
      // with one store: that store made beside the default one
      'own-store': { type: 'boolean', default: false },
      // another checkout's writer process, fed the same way (before and
      // after); --strings: its workers sent every term as its string
      root: { type: 'string', multiple: true, default: [ROOT] },
      strings: { type: 'string', multiple: true, default: [] }
    }
  })
  const counts = values.workers.split(',').map(Number)
  const profile = describeProfile()
  process.stdout.write(`statements: ${profile.text}${Number(values.stores) > 1 ? `, spread over ${values.stores} stores by learner` : values['own-store'] ? ', in one store made beside the default one' : ''}; building a pool of ${Number(values.pool).toLocaleString('en-US')}\n`)
  const next = recordPool(Number(values.pool), { stores: Number(values.stores), ownStore: values['own-store'] })
  const runs = []
  const roots = [...values.root.map((r) => ({ root: path.resolve(r), strings: false })), ...values.strings.map((r) => ({ root: path.resolve(r), strings: true }))]
  for (let r = 1; r <= Number(values.repeat); r++) {
    for (const workers of counts) {
      for (const { root, strings } of roots) {
        const run = { root: label(root, strings), ...(await feed({ workers, connections: Number(values.connections), seconds: Number(values.seconds), batch: Number(values.batch), next, root, strings })) }
        runs.push(run)
        process.stdout.write(`#${r} ${JSON.stringify(run)}\n`)
      }
    }
  }
  const rows = roots.flatMap(({ root, strings }) => counts.map((workers) => {
    const mine = runs.filter((x) => x.workers === workers && x.root === label(root, strings))
    return { root: mine[0].root, workers, ...Object.fromEntries(MEDIANS.map((k) => [k, median(mine.map((x) => x[k]))])) }
  }))
  if (runs.some((x) => x.poolCameRound)) process.stdout.write('warning: a run went past the pool (--pool): its statements repeated, and its figures are friendlier than the profile\n')
  process.stdout.write(JSON.stringify({ profile: profile.name, medians: rows, cpus: os.cpus().length, load: os.loadavg()[0].toFixed(2) }) + '\n')
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`bench failed: ${err.stack || err.message}\n`)
    process.exit(1)
  })
}

// The writer process alone at `workers` clients (the cores scenario's reference beside the LRS).
let pool = null
async function writerAlone ({ workers, connections, seconds, batch = 20 }) {
  if (!pool) pool = recordPool()
  return feed({ workers, connections, seconds, batch, next: pool, root: ROOT, strings: false })
}

module.exports = { writerAlone }
