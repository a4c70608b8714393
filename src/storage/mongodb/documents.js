'use strict'

// The documents collection, shared by State, Activity Profile and Agent
// Profile: { _id, resource, scope, registration, docId, contentType,
// content (Binary), etag, updated }. `_id` is a hash of the resource and
// all its key parameters, so each document has one unique key and every
// conditional write is a single-document operation on _id: concurrent
// writers cannot lose an update (no read-then-write without a check).

const { Binary } = require('mongodb')
const { DUPLICATE_KEY } = require('./insert-many')

// `exclusive`: see locks.js (only FerretDB needs a lock around a conditional write).
function documentsRepository (db, { queryTimeoutMs, exclusive: exclusiveById }) {
  const col = db.collection('documents')
  const exclusive = (id, fn) => exclusiveById(`document:${id}`, fn)

  const toRow = (doc) => doc && {
    docId: doc.docId,
    contentType: doc.contentType,
    content: Buffer.from(doc.content.buffer),
    etag: doc.etag,
    updated: doc.updated
  }

  const toDoc = (key, value) => ({
    _id: key.id,
    resource: key.resource,
    scope: key.scope,
    registration: key.registration || null,
    docId: key.docId,
    contentType: value.contentType,
    content: new Binary(value.content),
    etag: value.etag,
    updated: value.updated
  })

  return {
    async get (key) {
      return toRow(await col.findOne({ _id: key.id }, { maxTimeMS: queryTimeoutMs }))
    },
    // Insert only if absent. Returns false if it exists.
    async insert (key, value) {
      try {
        await exclusive(key.id, () => col.insertOne(toDoc(key, value)))
        return true
      } catch (err) {
        if (err.code === DUPLICATE_KEY) return false
        throw err
      }
    },
    // Replace only if the stored etag is `etag` (or unconditionally when
    // etag is null, creating it if absent). Returns whether it was written.
    async replace (key, value, { etag = null, upsert = false } = {}) {
      const filter = etag === null ? { _id: key.id } : { _id: key.id, etag }
      const r = await exclusive(key.id, () => col.replaceOne(filter, toDoc(key, value), { upsert }))
      return r.matchedCount > 0 || r.upsertedCount > 0
    },
    async delete (key, { etag = null } = {}) {
      const r = await exclusive(key.id, () => col.deleteOne(etag === null ? { _id: key.id } : { _id: key.id, etag }))
      return r.deletedCount > 0
    },
    async list ({ resource, scope, registration, since }) {
      const filter = { resource, scope }
      if (registration !== undefined) filter.registration = registration
      if (since) filter.updated = { $gt: since }
      const rows = await col.find(filter, { projection: { docId: 1, updated: 1 }, maxTimeMS: queryTimeoutMs }).toArray()
      return rows
    },
    async deleteMany ({ resource, scope, registration }) {
      const filter = { resource, scope }
      if (registration !== undefined) filter.registration = registration
      await col.deleteMany(filter)
    }
  }
}

module.exports = { documentsRepository }
