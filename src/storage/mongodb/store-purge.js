'use strict'

// Purges deleted stores' data on MongoDB (stores.js, remove): every LRS
// process looks every POLL_MS for a deleted store not purged yet, and the
// one that takes the `store-purge` lock removes its data slice after
// slice: statements and pending flags (their _id is in the store's key
// range, store-keys.js) with their forwarding entries, then documents,
// then attachments and their chunks. A store is marked purged once a pass
// finds nothing and `graceMs` have passed since its deletion (a worker
// that had not heard of it yet may have written a last request). The lock
// expires (LOCK_MS) if its holder stops; what a stopped purge had not
// removed is found by the next one.

const { keyRange } = require('./stores')
const { formerId } = require('../../stores/store-keys')
const { DUPLICATE_KEY } = require('./insert-many')
const { removeStatementEntries } = require('./outbox')
const { startRepeating } = require('../../lib/repeating-job')

const POLL_MS = 2000
const SLICE = 1000
const LOCK_MS = 30000
const LOCK_ID = 'store-purge'

function startStorePurge (db, { ready, logger, graceMs = 10000 }) {
  const stores = db.collection('stores')
  const locks = db.collection('locks')
  async function takeLock () {
    await locks.deleteOne({ _id: LOCK_ID, expiresAt: { $lt: new Date() } })
    try {
      await locks.insertOne({ _id: LOCK_ID, expiresAt: new Date(Date.now() + LOCK_MS) })
      return true
    } catch (err) {
      if (err.code === DUPLICATE_KEY) return false
      throw err
    }
  }
  const extendLock = () => locks.updateOne({ _id: LOCK_ID }, { $set: { expiresAt: new Date(Date.now() + LOCK_MS) } })

  // Deletes `filter`'s documents of `collection` a slice at a time; how many.
  async function drain (collection, filter, each = async () => {}) {
    let removed = 0
    for (;;) {
      if (job.stopped()) return removed
      const ids = (await db.collection(collection).find(filter, { projection: { _id: 1 }, limit: SLICE }).toArray()).map((d) => d._id)
      if (!ids.length) return removed
      await each(ids)
      removed += (await db.collection(collection).deleteMany({ _id: { $in: ids } })).deletedCount
      await extendLock()
    }
  }

  async function purge (store) {
    const range = keyRange(store.number)
    const started = Date.now()
    const removeForwarding = (ids) => removeStatementEntries(db, ids)
    const statements = await drain('statements', { _id: range }, removeForwarding)
    // documents written before stores could be deleted have no `store`; State and Agent Profile ones have a qualified agent
    const documents = await drain('documents', { store: store.number }) + await drain('documents', { agent: range })
    await drain('attachment_chunks', { _id: range })
    const attachments = await drain('attachments', { _id: range })
    if (job.stopped() || Date.now() - store.deletedAt.getTime() < graceMs) return
    if (await db.collection('statements').findOne({ _id: range }, { projection: { _id: 1 } })) return // a last write came meanwhile
    await stores.updateOne({ _id: store._id }, { $set: { purgedAt: new Date() } })
    // the counts and `ms` are this pass's: a purge a stop cut short was resumed here
    logger.info({ store: formerId(store._id), statements, documents, attachments, ms: Date.now() - started, sinceDeletionMs: Date.now() - store.deletedAt.getTime() }, 'deleted store purged')
  }

  async function pass () {
    const due = await stores.find({ deletedAt: { $exists: true }, purgedAt: { $exists: false } }).sort({ number: 1 }).toArray()
    if (!due.length || !await takeLock()) return
    try {
      for (const store of due) await purge(store)
    } finally {
      await locks.deleteOne({ _id: LOCK_ID })
    }
  }

  const job = startRepeating({ ready, everyMs: POLL_MS, run: pass, logger, failure: 'purging a deleted store failed; it is tried again' })
  return job
}

module.exports = { startStorePurge }
