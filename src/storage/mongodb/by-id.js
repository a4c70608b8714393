'use strict'

// Reads and conditional writes by _id that are fast and atomic on MongoDB
// and on FerretDB alike. MongoDB applies a filter atomically to one
// document. FerretDB serves only an exact {_id} filter from an index (any
// other filter, `$in` included, reads the whole collection) and its
// filtered writes are not atomic; there each document is read by _id under
// a lock (locks.js), checked here, and written by _id.

// `condition`: field -> value (equal) or { $ne: value }.
function matches (doc, condition) {
  for (const [field, want] of Object.entries(condition)) {
    const have = doc[field]
    if (want !== null && typeof want === 'object' && '$ne' in want) {
      if (have === want.$ne) return false
    } else if (have !== want) {
      return false
    }
  }
  return true
}

function byId (col, { isFerret, locks, maxTimeMS }) {
  return {
    async findMany (ids, projection) {
      if (!ids.length) return []
      if (!isFerret()) return col.find({ _id: { $in: ids } }, { projection, maxTimeMS }).toArray()
      const docs = await Promise.all(ids.map((id) => col.findOne({ _id: id }, { projection, maxTimeMS })))
      return docs.filter(Boolean)
    },

    async deleteMany (ids) {
      if (!ids.length) return
      if (!isFerret()) await col.deleteMany({ _id: { $in: ids } })
      else for (const id of ids) await col.deleteOne({ _id: id })
    },

    // One at a time on FerretDB: concurrent writes there fail with
    // "database is locked" (SQLITE_BUSY) under load.
    async updateMany (ids, set) {
      if (!ids.length) return
      if (!isFerret()) await col.updateMany({ _id: { $in: ids } }, { $set: set })
      else for (const id of ids) await col.updateOne({ _id: id }, { $set: set })
    },

    // Applies `write` ({ delete: true } | { set } | { replace }) to document
    // `id` if it matches `condition`. Returns whether it did. `upsert` (with
    // replace): an absent document is created.
    async writeIf (id, condition, write, { upsert = false } = {}) {
      if (!isFerret()) {
        const filter = { _id: id, ...condition }
        if (write.delete) return (await col.deleteOne(filter)).deletedCount > 0
        if (write.set) return (await col.updateOne(filter, { $set: write.set })).matchedCount > 0
        const r = await col.replaceOne(filter, write.replace, { upsert })
        return r.matchedCount > 0 || r.upsertedCount > 0
      }
      return locks.withLock(`${col.collectionName}:${id}`, async () => {
        const doc = await col.findOne({ _id: id }, { maxTimeMS })
        if (!doc && upsert && write.replace) {
          await col.insertOne({ ...write.replace, _id: id })
          return true
        }
        if (!doc || !matches(doc, condition)) return false
        if (write.delete) await col.deleteOne({ _id: id })
        else if (write.set) await col.updateOne({ _id: id }, { $set: write.set })
        else await col.replaceOne({ _id: id }, write.replace)
        return true
      })
    }
  }
}

module.exports = { byId }
