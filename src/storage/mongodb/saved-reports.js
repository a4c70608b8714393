'use strict'

// Saved reports on MongoDB: { _id, store, revision, name, definition,
// createdAt, updatedAt } (src/reports/, /admin/reports).

const { insertManyReportingDuplicates } = require('./insert-many')

function savedReportsRepository (db, { queryTimeoutMs }) {
  const col = db.collection('saved_reports')
  const stores = db.collection('stores')
  const toReport = (r) => ({ id: r._id, store: r.store, revision: r.revision, name: r.name, definition: r.definition, createdAt: r.createdAt, updatedAt: r.updatedAt })
  return {
    async list ({ store }) {
      return (await col.find({ store }, { maxTimeMS: queryTimeoutMs }).sort({ name: 1, _id: 1 }).toArray()).map(toReport)
    },
    async get ({ id, store }) {
      const r = await col.findOne({ _id: id, store }, { maxTimeMS: queryTimeoutMs })
      return r ? toReport(r) : null
    },
    // false when its store is gone
    async create ({ id, store, name, definition }) {
      if (store !== 0 && !await stores.findOne({ number: store, deletedAt: { $exists: false } }, { maxTimeMS: queryTimeoutMs })) return false
      const at = new Date()
      const taken = await insertManyReportingDuplicates(col, [{ _id: id, store, revision: 1, name, definition, createdAt: at, updatedAt: at }])
      if (taken.length) throw new Error(`saved report id ${id} taken`)
      return true
    },
    // 'changed', 'moved' (changed since `revision`) or 'missing'
    async replace ({ id, store, revision, name, definition }) {
      const { matchedCount } = await col.updateOne({ _id: id, store, revision }, { $set: { name, definition, updatedAt: new Date() }, $inc: { revision: 1 } })
      if (matchedCount) return 'changed'
      return await col.findOne({ _id: id, store }, { maxTimeMS: queryTimeoutMs }) ? 'moved' : 'missing'
    },
    async remove ({ id, store }) {
      return (await col.deleteOne({ _id: id, store })).deletedCount === 1
    }
  }
}

module.exports = { savedReportsRepository }
