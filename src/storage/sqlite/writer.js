'use strict'

// The main thread's side of the writer thread: `call(op, ...args)`
// resolves with what the operation returned, or rejects with its error.

const path = require('node:path')
const { Worker } = require('node:worker_threads')
const { errors } = require('../../errors')
const { errorFrom } = require('./writer-errors')

// `oneWriter`: this process's thread is the store's only writer (writer-loop.js).
// `merges: false`: tests only, no merge thread (the index rows stay where they are).
function startWriter (dataDir, logger, { walLimitBytes, mergeStatements, middleStatements, levelRatio, maxPageCount, oneWriter = false, merges = true, purgeGraceMs, purge } = {}) {
  const worker = new Worker(path.join(__dirname, 'writer-thread.js'), { workerData: { dataDir, walLimitBytes, mergeStatements, middleStatements, levelRatio, maxPageCount, oneWriter, merges, purgeGraceMs, purge } })
  const pending = new Map()
  let next = 0
  let failed = null

  const ready = new Promise((resolve, reject) => {
    worker.once('message', (m) => (m === 'ready' ? resolve() : reject(new Error(`unexpected message from the writer: ${m}`))))
    worker.once('error', reject)
  })

  worker.on('message', (replies) => {
    if (replies && replies.warning) {
      logger.warn({ err: replies.error }, replies.warning)
      return
    }
    if (replies && replies.info) {
      logger.info(replies.fields, replies.info)
      return
    }
    if (!Array.isArray(replies)) return
    for (const r of replies) {
      const call = pending.get(r.id)
      pending.delete(r.id)
      if (!call) continue
      if (r.error) call.reject(errorFrom(r.error))
      else call.resolve(r.value)
    }
  })
  // A writer that dies leaves this worker unable to write: every call, and
  // the readiness check, answer DatabaseUnavailable (503) from then on.
  let closing = false
  function fail (err) {
    if (failed) return
    failed = errors.DatabaseUnavailable(undefined, { cause: err })
    logger.fatal({ err }, 'SQLite writer thread stopped')
    for (const call of pending.values()) call.reject(failed)
    pending.clear()
  }
  worker.on('error', fail)
  const exited = new Promise((resolve) => worker.once('exit', (code) => {
    if (!closing) fail(new Error(`the writer thread exited with code ${code}`))
    resolve()
  }))

  return {
    ready,
    call (op, ...args) {
      if (failed) return Promise.reject(failed)
      return new Promise((resolve, reject) => {
        const id = next++
        pending.set(id, { resolve, reject })
        worker.postMessage({ id, op, args })
      })
    },
    get failed () { return failed },
    thread: worker, // for tests that stop it
    async close () {
      closing = true
      worker.postMessage('close')
      await exited
    }
  }
}

module.exports = { startWriter }
