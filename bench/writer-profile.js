'use strict'

// The SQLite writer alone: a fresh store in a temporary folder, N
// statements of the generator sent through storage.statements.storeBatch
// in this process (no HTTP, no validation), BATCH statements a call and
// IN_FLIGHT calls at once, as the workers' requests would reach it.
// Prints statements/s, the CPU of the writer thread per statement (from
// /proc: the writer's own work, whatever else this process or machine
// does), that of the other threads the store started (the merge thread)
// and the bytes on disk per statement.
//
//   node bench/writer-profile.js [--n 200000] [--batch 20] [--in-flight 50] [--root <checkout>]
//   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/writer-profile.js   (one profile per thread)
//   node bench/writer-profile.js --client-ids   (statements sent with their ids: each is looked up)
//   node bench/writer-profile.js --idle 30   (one batch, then the writer left idle that many seconds,
//                                   not counted: on a large kept store it reads the stored ids
//                                   meanwhile, id-filter.js, which it starts at its first write)
//   node bench/writer-profile.js --profile worst   (the statements' cardinality, statement-generator.js;
//                                   campus by default, or BENCH_PROFILE)
//   node bench/writer-profile.js --every 100000   (statements/s and writer CPU per slice, as it goes)
//   node bench/writer-profile.js --store <LRS_DATA_DIR>   (adds N statements to a kept store:
//                                   the writer's cost at its size; bytes on disk not reported)
//
// --root measures another checkout's engine with this same harness (an
// older commit, for before and after).

const crypto = require('node:crypto')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseArgs } = require('node:util')

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', default: '200000' },
    batch: { type: 'string', default: '20' },
    'in-flight': { type: 'string', default: '50' },
    root: { type: 'string', default: path.join(__dirname, '..') },
    store: { type: 'string' },
    'client-ids': { type: 'boolean', default: false },
    idle: { type: 'string', default: '0' },
    profile: { type: 'string', default: process.env.BENCH_PROFILE || 'campus' },
    every: { type: 'string', default: '0' }
  }
})
const N = Number(args.n)
const BATCH = Number(args.batch)
const IN_FLIGHT = Number(args['in-flight'])
const root = path.resolve(args.root)
// this checkout's generator, whatever the engine measured
const { scormStatement, describeProfile } = require('./statement-generator')
const EVERY = Number(args.every)
const { toRecord } = require(path.join(root, 'src/resources/statements/statement-record'))
const { loadConfig } = require(path.join(root, 'src/config'))
const { createLogger } = require(path.join(root, 'src/logger'))
const { openStorage } = require(path.join(root, 'src/storage'))

const AUTHORITY = { objectType: 'Agent', name: 'bench', account: { homePage: 'http://localhost/lrs', name: 'bench' } }
// With the small profile, records are built once (toRecord is the
// worker's work, not the writer's) and sent again under new ids: its terms
// repeat with a period below this, so the writer sees every term it would.
// The other profiles' terms do not repeat so soon: each record is built as
// it is sent (on this process's main thread; the writer's CPU is its own
// thread's).
const POOL = 10000
const TICKS = 100 // USER_HZ: /proc counts CPU time in hundredths of a second on Linux

function threadIds () {
  return new Set(fs.readdirSync('/proc/self/task'))
}

// user + system CPU seconds of one thread of this process
function threadCpuSeconds (tid) {
  const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / TICKS
}

function pool () {
  const placeholder = '00000000-0000-4000-8000-000000000000'
  if (args.profile !== 'small') {
    let next = 0
    return function record () {
      const id = crypto.randomUUID()
      return { ...toRecord({ ...scormStatement(next++, args.profile), id }, { authority: AUTHORITY, xapiVersion: '1.0.3' }), newId: !args['client-ids'] }
    }
  }
  const records = []
  for (let i = 0; i < POOL; i++) records.push(toRecord({ ...scormStatement(i), id: placeholder }, { authority: AUTHORITY, xapiVersion: '1.0.3' }))
  let next = 0
  return function record () {
    const r = records[next++ % POOL]
    const id = crypto.randomUUID()
    return { ...r, id, newId: !args['client-ids'], body: r.body.replace(placeholder, id) } // an id the LRS made, as for the bench's statements, or (--client-ids) one a client sent
  }
}

// bytes this process handed to write() (the WAL, checkpoints), all threads
function writtenBytes () {
  return Number(/wchar: (\d+)/.exec(fs.readFileSync('/proc/self/io', 'utf8'))[1])
}

// the bytes of a new store once its WAL is checkpointed; it is removed
function storeBytes (dir) {
  // the root's own opener: the index file too, where it has one
  const db = require(path.join(root, 'src/storage/sqlite/open')).openDatabase(dir)
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  const bytes = duBytes(dir)
  fs.rmSync(dir, { recursive: true, force: true })
  return bytes
}

function duBytes (dir) {
  let bytes = 0
  for (const name of fs.readdirSync(dir)) bytes += fs.statSync(path.join(dir, name)).size
  return bytes
}

async function main () {
  const record = pool()
  const dir = args.store ? path.resolve(args.store) : fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-writer-profile-'))
  const before = threadIds()
  const storage = openStorage(loadConfig({ MONGODB_URI: '', LRS_DATA_DIR: dir, LRS_LOG_LEVEL: 'warn' }), createLogger({ logLevel: 'warn' }))
  await storage.ready
  if (Number(args.idle) > 0) {
    await storage.statements.storeBatch([Array.from({ length: BATCH }, record)], { stored: new Date(), sameStatement: () => true })
    await new Promise((resolve) => setTimeout(resolve, Number(args.idle) * 1000))
  }
  // the writer: the thread that started with the store (libuv's pool
  // threads may start too; the writer is the one that works)
  const started = [...threadIds()].filter((tid) => !before.has(tid))
  const cpuBefore = new Map(started.map((tid) => [tid, threadCpuSeconds(tid)]))
  const processBefore = process.cpuUsage()
  const writtenBefore = writtenBytes()
  const t0 = process.hrtime.bigint()
  let sent = 0
  let done = 0
  let slice = { at: t0, done: 0, cpu: 0 }
  const writerCpuNow = () => Math.max(...started.map((tid) => threadCpuSeconds(tid) - cpuBefore.get(tid)))
  const loop = async () => {
    while (sent < N) {
      const records = []
      for (let end = Math.min(N, sent + BATCH); sent < end; sent++) records.push(record())
      const { failed } = await storage.statements.storeBatch([records], { stored: new Date(), sameStatement: () => true })
      if (failed.size) throw new Error('a statement failed')
      done += records.length
      if (EVERY && done - slice.done >= EVERY) {
        const now = process.hrtime.bigint()
        const cpu = writerCpuNow()
        const n = done - slice.done
        process.stderr.write(`${done}: ${Math.round(n / (Number(now - slice.at) / 1e9))} st/s, writer ${((cpu - slice.cpu) / n * 1e6).toFixed(1)} us/statement\n`)
        slice = { at: now, done, cpu }
      }
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop))
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9
  const used = started.map((tid) => threadCpuSeconds(tid) - cpuBefore.get(tid))
  const writerCpu = Math.max(...used)
  const otherCpu = used.reduce((a, b) => a + b, 0) - writerCpu // the merge thread's, where there is one
  const processCpu = process.cpuUsage(processBefore)
  const written = writtenBytes() - writtenBefore
  await storage.close()
  const bytes = args.store ? null : storeBytes(dir)
  const out = {
    root: path.relative(process.cwd(), root) || '.',
    profile: describeProfile(args.profile).text,
    statements: N,
    batch: BATCH,
    inFlight: IN_FLIGHT,
    statementsPerSec: Math.round(N / seconds),
    writerCpuMicrosPerStatement: +(writerCpu / N * 1e6).toFixed(1),
    otherThreadsCpuMicrosPerStatement: +(otherCpu / N * 1e6).toFixed(1),
    processCpuMicrosPerStatement: +((processCpu.user + processCpu.system) / N).toFixed(1),
    bytesPerStatement: bytes === null ? null : Math.round(bytes / N),
    writtenBytesPerStatement: Math.round(written / N),
    loadAverage: os.loadavg()[0].toFixed(2)
  }
  process.stdout.write(JSON.stringify(out) + '\n')
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
