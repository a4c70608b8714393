'use strict'

// Forwarders on MongoDB: { _id, store, revision, definition, createdAt,
// updatedAt } (src/forwarding/forwarders.js). A change moves the
// credentials' change mark, which every worker of every host polls.

const { credentialsChanged } = require('./credentials')
const { FORWARDING_COLLECTIONS } = require('./outbox')
const { insertManyReportingDuplicates } = require('./insert-many')

function forwardersRepository (db, { queryTimeoutMs }) {
  const col = db.collection('forwarders')
  const stores = db.collection('stores')
  const toForwarder = (r) => ({ id: r._id, store: r.store, revision: r.revision, definition: r.definition, createdAt: r.createdAt, updatedAt: r.updatedAt })
  return {
    async all () {
      const rows = await col.find({}, { maxTimeMS: queryTimeoutMs }).sort({ store: 1, createdAt: 1, _id: 1 }).toArray()
      return rows.map(toForwarder)
    },
    // false when its store is gone
    async create ({ id, store, definition }) {
      if (store !== 0 && !await stores.findOne({ number: store, deletedAt: { $exists: false } }, { maxTimeMS: queryTimeoutMs })) return false
      const at = new Date()
      const taken = await insertManyReportingDuplicates(col, [{ _id: id, store, revision: 1, definition, createdAt: at, updatedAt: at }])
      if (taken.length) throw new Error(`forwarder id ${id} taken`)
      await credentialsChanged(db)
      return true
    },
    // 'changed', 'moved' (another change came first) or 'missing'
    async replace ({ id, store, revision, definition }) {
      const { matchedCount } = await col.updateOne({ _id: id, store, revision }, { $set: { definition, updatedAt: new Date() }, $inc: { revision: 1 } })
      if (matchedCount) {
        await credentialsChanged(db)
        return 'changed'
      }
      return await col.findOne({ _id: id, store }, { maxTimeMS: queryTimeoutMs }) ? 'moved' : 'missing'
    },
    // with its queue and dead letters; false: none
    async remove ({ id, store, upstream }) {
      const { deletedCount } = await col.deleteOne({ _id: id, store })
      if (!deletedCount) return false
      await Promise.all(FORWARDING_COLLECTIONS.map((c) => db.collection(c).deleteMany({ upstream })))
      await credentialsChanged(db)
      return true
    }
  }
}

module.exports = { forwardersRepository }
