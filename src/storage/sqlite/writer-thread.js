'use strict'

// The SQLite writer: a thread of its own in each worker process, so that
// inserts, index upkeep and the fsync of every commit never hold up the
// worker's event loop. Operations (write-ops.js) queue up while a
// transaction runs and the next transaction takes them all: one commit
// (one fsync) for many requests, each operation in a savepoint of its own,
// so one failing operation fails alone.

const { parentPort, workerData } = require('node:worker_threads')
const { openDatabase } = require('./open')
const { writeOps } = require('./write-ops')

const MAX_OPERATIONS_PER_TRANSACTION = 256

const db = openDatabase(workerData.dataDir) // the schema is there: the main thread made it (index.js)
const { ops, commit, rollback } = writeOps(db)
const queue = []
let scheduled = false

function errorOf (err) {
  return { name: err.name, message: err.message, code: err.code }
}

function runQueued () {
  scheduled = false
  const batch = queue.splice(0, MAX_OPERATIONS_PER_TRANSACTION)
  const replies = []
  try {
    db.exec('BEGIN IMMEDIATE')
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
  if (queue.length) schedule()
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
