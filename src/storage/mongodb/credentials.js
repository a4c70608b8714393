'use strict'

// Credentials: { _id: key, secretHash, scopes, createdAt, lastUsedAt, store }
// (store: the number of its store; none, the default store's), and a change
// counter in settings that every worker polls (credential-store.js).

const { insertManyReportingDuplicates } = require('./insert-many')

const MARK = 'credentials_changed'

// Every worker reads the credentials again (a store's deletion removes its own too: stores.js).
function credentialsChanged (db) {
  return db.collection('settings').updateOne({ _id: MARK }, { $inc: { value: 1 } }, { upsert: true })
}

function credentialsRepository (db, { queryTimeoutMs }) {
  const col = db.collection('credentials')
  const settings = db.collection('settings')
  const changed = () => credentialsChanged(db)
  return {
    async upsert ({ key, secretHash, scopes, store = 0 }) {
      const { upsertedCount, modifiedCount } = await col.updateOne(
        { _id: key },
        { $set: { secretHash, scopes, store }, $setOnInsert: { createdAt: new Date() } },
        { upsert: true }
      )
      if (upsertedCount || modifiedCount) await changed()
    },
    async create ({ key, secretHash, scopes, store = 0 }) {
      const taken = await insertManyReportingDuplicates(col, [{ _id: key, secretHash, scopes, store, createdAt: new Date() }])
      if (taken.length) return false
      await changed()
      return true
    },
    async setScopes (key, scopes) {
      const { matchedCount } = await col.updateOne({ _id: key }, { $set: { scopes } })
      if (matchedCount) await changed()
      return matchedCount === 1
    },
    async remove (key) {
      const { deletedCount } = await col.deleteOne({ _id: key })
      if (deletedCount) await changed()
      return deletedCount === 1
    },
    // `at`: ms; an earlier time than the one kept leaves it. Not a change of
    // the credential: the counter stays.
    async recordUse (key, at) {
      await col.updateOne({ _id: key }, { $max: { lastUsedAt: new Date(at) } })
    },
    async all () {
      const rows = await col.find({}, { maxTimeMS: queryTimeoutMs }).sort({ _id: 1 }).toArray()
      return rows.map((r) => ({ key: r._id, secretHash: r.secretHash, scopes: r.scopes || [], createdAt: r.createdAt || null, lastUsedAt: r.lastUsedAt || null, store: r.store || 0 }))
    },
    async changeMark () {
      const row = await settings.findOne({ _id: MARK }, { maxTimeMS: queryTimeoutMs })
      return String(row ? row.value : 0)
    }
  }
}

module.exports = { credentialsRepository, credentialsChanged }
