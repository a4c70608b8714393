'use strict'

// Credentials: { _id: key, secretHash, scopes, createdAt }.
function credentialsRepository (db, { queryTimeoutMs }) {
  const col = db.collection('credentials')
  return {
    async upsert ({ key, secretHash, scopes }) {
      await col.updateOne(
        { _id: key },
        { $set: { secretHash, scopes }, $setOnInsert: { createdAt: new Date() } },
        { upsert: true }
      )
    },
    async all () {
      const rows = await col.find({}, { maxTimeMS: queryTimeoutMs }).toArray()
      return rows.map((r) => ({ key: r._id, secretHash: r.secretHash, scopes: r.scopes || [] }))
    }
  }
}

module.exports = { credentialsRepository }
