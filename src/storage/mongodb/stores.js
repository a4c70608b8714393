'use strict'

// Stores on MongoDB: { _id: id, number, name, createdAt }, the id unique
// as the document key (FerretDB enforces no other unique index); numbers
// from a counter in settings. The default store (0) is a document only
// once renamed.

const { insertManyReportingDuplicates } = require('./insert-many')

const DEFAULT = { number: 0, id: 'default', name: 'Default store', createdAt: null }
const COUNTER = 'store_numbers'

function storesRepository (db, { queryTimeoutMs }) {
  const col = db.collection('stores')
  const settings = db.collection('settings')
  return {
    // 'created' or 'taken' (the id)
    async create ({ id, name }) {
      if (id === DEFAULT.id || await col.findOne({ _id: id }, { projection: { _id: 1 }, maxTimeMS: queryTimeoutMs })) return 'taken'
      // a number is used once, even when its insert finds the id taken meanwhile
      const counter = await settings.findOneAndUpdate({ _id: COUNTER }, { $inc: { value: 1 } }, { upsert: true, returnDocument: 'after' })
      const number = counter.value
      const taken = await insertManyReportingDuplicates(col, [{ _id: id, number, name, createdAt: new Date() }])
      return taken.length === 0 ? 'created' : 'taken'
    },
    // false when there is no such store (the default store's document is
    // made by its first rename)
    async rename ({ id, name }) {
      if (id === DEFAULT.id) {
        await col.updateOne({ _id: id }, { $set: { name }, $setOnInsert: { number: 0, createdAt: null } }, { upsert: true })
        return true
      }
      const { matchedCount } = await col.updateOne({ _id: id }, { $set: { name } })
      return matchedCount === 1
    },
    async all () {
      const rows = (await col.find({}, { maxTimeMS: queryTimeoutMs }).sort({ number: 1 }).toArray()).map((r) => ({ number: r.number, id: r._id, name: r.name, createdAt: r.createdAt }))
      return rows.some((r) => r.number === 0) ? rows : [DEFAULT, ...rows]
    }
  }
}

module.exports = { storesRepository }
