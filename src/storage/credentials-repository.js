'use strict'

// Credentials: { _id: key, secretHash, scopes, createdAt }.
function credentialsRepository (db) {
  const col = db.collection('credentials')
  return {
    async upsert ({ key, secretHash, scopes }) {
      await col.updateOne(
        { _id: key },
        { $set: { secretHash, scopes }, $setOnInsert: { createdAt: new Date() } },
        { upsert: true }
      )
    },
    async all ({ maxTimeMS }) {
      return col.find({}, { maxTimeMS }).toArray()
    }
  }
}

module.exports = { credentialsRepository }
