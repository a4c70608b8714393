'use strict'

// Stores on MongoDB: { _id: id, number, name, createdAt }, the id unique
// as the document key (FerretDB enforces no other unique index); numbers
// from a counter in settings. The default store (0) is not a document.

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
    async all () {
      const rows = await col.find({}, { maxTimeMS: queryTimeoutMs }).sort({ number: 1 }).toArray()
      return [DEFAULT, ...rows.map((r) => ({ number: r.number, id: r._id, name: r.name, createdAt: r.createdAt }))]
    }
  }
}

module.exports = { storesRepository }
