'use strict'

// The console's sign-in sessions on MongoDB (src/console/sso/sessions.js
// says what they are): { _id: SHA-256 of the cookie's value, data,
// createdAt, seenAt } (ms).

function consoleSessionsRepository (db, { queryTimeoutMs }) {
  const col = db.collection('console_sessions')
  return {
    // A new one first removes those whose time is up.
    async create ({ idHash, data, at, idleBefore, createdBefore }) {
      await col.deleteMany({ $or: [{ seenAt: { $lt: idleBefore } }, { createdAt: { $lt: createdBefore } }] })
      await col.insertOne({ _id: idHash, data, createdAt: at, seenAt: at })
    },
    async get (idHash) {
      const row = await col.findOne({ _id: idHash }, { maxTimeMS: queryTimeoutMs })
      return row ? { data: row.data, createdAt: row.createdAt, seenAt: row.seenAt } : null
    },
    async touch (idHash, at) {
      await col.updateOne({ _id: idHash, seenAt: { $lt: at } }, { $set: { seenAt: at } })
    },
    async remove (idHash) {
      return (await col.deleteOne({ _id: idHash })).deletedCount === 1
    }
  }
}

module.exports = { consoleSessionsRepository }
