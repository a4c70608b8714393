'use strict'

// The SQLite writer: a thread of its own in each worker process, so that
// inserts, index upkeep and the fsync of every commit never hold up the
// worker's event loop. Operations (write-ops.js) queue up while a
// transaction runs and the next transaction takes them all: one commit
// (one fsync) for many requests, each operation in a savepoint of its own,
// so one failing operation fails alone.

const { parentPort, workerData } = require('node:worker_threads')
const fs = require('node:fs')
const { openDatabase, databaseFile } = require('./open')
const { writeOps } = require('./write-ops')

// A transaction holds the write lock of the file (the other workers wait)
// and its requests wait for its end: it takes what queued up to about a
// thousand statements, not everything.
const MAX_OPERATIONS_PER_TRANSACTION = 256
const MAX_STATEMENTS_PER_TRANSACTION = 500

const db = openDatabase(workerData.dataDir, { busyTimeoutMs: 0 }) // the schema is there: the main thread made it (index.js)
const walFile = databaseFile(workerData.dataDir) + '-wal'
const pause = new Int32Array(new SharedArrayBuffer(4))
const sleep = (ms) => Atomics.wait(pause, 0, 0, ms) // blocks this thread only

// The workers of one LRS each have a writer and take the file's write lock
// in turn. SQLite's own busy handler sleeps up to 100 ms between tries,
// while a busy writer takes the lock again within microseconds of its
// commit: measured, one worker waited up to 2 s for its turn. So a writer
// asks again every millisecond, and after a full transaction leaves a
// moment for the others before its next one.
const LOCK_TIMEOUT_MS = 5000
const YIELD_MS = 2

function beginImmediate () {
  const deadline = Date.now() + LOCK_TIMEOUT_MS
  for (;;) {
    try {
      db.exec('BEGIN IMMEDIATE')
      return
    } catch (err) {
      if (err.code !== 'SQLITE_BUSY' || Date.now() > deadline) throw err
      sleep(1)
    }
  }
}
// SQLite's automatic checkpoints copy the WAL into the database but can
// start the WAL over only at a moment when no reader uses it, which never
// comes while workers write and read without pause: measured, the WAL grew
// to 964 MB in a minute of ingest. So past WAL_LIMIT_BYTES a writer asks
// for a TRUNCATE checkpoint after its commit, waiting at most
// CHECKPOINT_WAIT_MS (this thread only) for readers and the other writers
// to let go; if they do not, the next commit tries again. (Waiting 500 ms
// instead emptied the WAL as well but tripled the soak's P99.)
const WAL_LIMIT_BYTES = workerData.walLimitBytes || 64 * 1024 * 1024
const CHECKPOINT_WAIT_MS = 20

function walBytes () {
  try {
    return fs.statSync(walFile).size
  } catch {
    return 0
  }
}

function checkpointIfLarge () {
  if (walBytes() < WAL_LIMIT_BYTES) return
  db.pragma(`busy_timeout = ${CHECKPOINT_WAIT_MS}`)
  try {
    db.pragma('wal_checkpoint(TRUNCATE)')
  } catch {
    // busy: the next commit tries again
  } finally {
    db.pragma('busy_timeout = 0')
  }
}

// The recent index tables are merged into the middle ones (schema.js) once
// they hold MERGE_STATEMENTS statements. Fewer, and each page of the
// middle tables is rewritten for few statements; more, and every commit
// rewrites more pages of the small ones. The middle tables are merged into
// the big ones once they hold MIDDLE_STATEMENTS. A writer counts the
// recent statements after every CHECK_EVERY_STATEMENTS it stored, the
// middle ones after each round into them; a round then moves one of its
// slices after each of this writer's commits, taking turns when both
// levels have one. The big tables' rounds have more slices: their slices
// rewrite pages of the big tables, the costly ones.
const MERGE_STATEMENTS = workerData.mergeStatements || 8192
const MIDDLE_STATEMENTS = workerData.middleStatements || 16 * MERGE_STATEMENTS
const CHECK_EVERY_STATEMENTS = Math.min(1000, MERGE_STATEMENTS)
const SLICES = [8, 32] // per round out of level 0 (recent) and 1 (middle)

const { ops, upkeep, commit, rollback } = writeOps(db)
let storedSinceCheck = 0
const rounds = [null, null] // by level: { level, seqCap, terms, ids, next }
let turn = 0

function startRound (level, threshold) {
  const statements = upkeep.statementsIn(level)
  const started = statements >= threshold && upkeep.startRound(level, SLICES[level], statements)
  if (started) rounds[level] = { ...started, next: 0 }
}

function mergeWhenLarge (statements) {
  storedSinceCheck += statements
  if (!rounds[0] && storedSinceCheck >= CHECK_EVERY_STATEMENTS) {
    storedSinceCheck = 0
    startRound(0, MERGE_STATEMENTS)
  }
  turn ^= 1
  const round = rounds[0] && rounds[1] ? rounds[turn] : rounds[0] || rounds[1]
  if (!round) return
  try {
    beginImmediate()
    upkeep.mergeSlice(round, round.next)
    db.exec('COMMIT')
    round.next++
    if (round.next < SLICES[round.level]) return
    rounds[round.level] = null
    if (round.level === 0 && !rounds[1]) startRound(1, MIDDLE_STATEMENTS)
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    // busy: the next commit tries again. Anything else would repeat: it is
    // logged and the round dropped until the next check (reads stay right:
    // they look in every level).
    if (err.code !== 'SQLITE_BUSY') {
      rounds[round.level] = null
      parentPort.postMessage({ warning: 'SQLite index merge failed; new index rows stay where they are', error: errorOf(err) })
    }
  }
}

const queue = []
let scheduled = false

// An error as it crosses to the worker: its stack too, for the log.
function errorOf (err) {
  return { name: err.name, message: err.message, code: err.code, stack: err.stack }
}

function statementCount ({ op, args }) {
  if (op === 'storeBatch') return args[0].reduce((n, group) => n + group.length, 0)
  if (op === 'insertStored') return args[0].length
  return 1
}

function runQueued () {
  scheduled = false
  let statements = 0
  let take = 0
  while (take < queue.length && take < MAX_OPERATIONS_PER_TRANSACTION && (take === 0 || statements < MAX_STATEMENTS_PER_TRANSACTION)) {
    statements += statementCount(queue[take])
    take++
  }
  const batch = queue.splice(0, take)
  const replies = []
  try {
    beginImmediate()
    for (const { id, op, args } of batch) {
      db.exec('SAVEPOINT operation')
      try {
        replies.push({ id, value: ops[op](...args) })
        db.exec('RELEASE operation')
      } catch (err) {
        db.exec('ROLLBACK TO operation; RELEASE operation')
        replies.push({ id, error: errorOf(err) })
      }
    }
    db.exec('COMMIT')
    commit()
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK')
    rollback()
    replies.length = 0
    for (const { id } of batch) replies.push({ id, error: errorOf(err) })
  }
  parentPort.postMessage(replies)
  mergeWhenLarge(statements)
  checkpointIfLarge()
  if (queue.length) {
    if (statements >= MAX_STATEMENTS_PER_TRANSACTION) sleep(YIELD_MS)
    schedule()
  }
}

function schedule () {
  if (scheduled) return
  scheduled = true
  setImmediate(runQueued)
}

parentPort.on('message', (message) => {
  if (message === 'close') {
    while (queue.length) runQueued()
    db.close()
    parentPort.close()
    return
  }
  if (!Object.hasOwn(ops, message.op)) {
    parentPort.postMessage([{ id: message.id, error: { name: 'Error', message: `unknown operation ${message.op}` } }])
    return
  }
  queue.push(message)
  schedule()
})

parentPort.postMessage('ready')
