'use strict'

// The documents collection, shared by State, Activity Profile and Agent
// Profile: { _id, resource, scope, registration, docId, agent (State and
// Agent Profile), store (its number; null: the default store), contentType,
// content (Binary), length (its bytes), etag, updated }. `_id` is a hash of the resource and
// all its key parameters, so each document has one unique key and every
// conditional write is a single-document operation on _id: concurrent
// writers cannot lose an update (no read-then-write without a check).

const { Binary } = require('mongodb')
const { DUPLICATE_KEY } = require('./insert-many')
const { byId } = require('./by-id')
const { documentFields } = require('../document-fields')

function documentsRepository (db, { queryTimeoutMs, isFerret, locks }) {
  const col = db.collection('documents')
  const ids = byId(col, { isFerret, locks, maxTimeMS: queryTimeoutMs })

  const toRow = (doc) => doc && {
    docId: doc.docId,
    contentType: doc.contentType,
    content: Buffer.from(doc.content.buffer),
    etag: doc.etag,
    updated: doc.updated
  }

  const toDoc = (key, value) => ({ _id: key.id, ...documentFields(key, value), content: new Binary(value.content), length: value.content.length, updated: value.updated })

  return {
    async get (key) {
      return toRow(await col.findOne({ _id: key.id }, { maxTimeMS: queryTimeoutMs }))
    },
    // Insert only if absent. Returns false if it exists.
    async insert (key, value) {
      try {
        await col.insertOne(toDoc(key, value))
        return true
      } catch (err) {
        if (err.code === DUPLICATE_KEY) return false
        throw err
      }
    },
    // Replace only if the stored etag is `etag` (or unconditionally when
    // etag is null, creating it if absent). Returns whether it was written.
    async replace (key, value, { etag = null, upsert = false } = {}) {
      return ids.writeIf(key.id, etag === null ? {} : { etag }, { replace: toDoc(key, value) }, { upsert })
    },
    async delete (key, { etag = null } = {}) {
      return ids.writeIf(key.id, etag === null ? {} : { etag }, { delete: true })
    },
    // Every State and Agent Profile document of an agent (erasure).
    async eraseAgent (agent) {
      const [state, agentProfile] = await Promise.all(['state', 'agentProfile'].map(async (resource) => (await col.deleteMany({ agent, resource })).deletedCount))
      return { state, agentProfile }
    },
    // What eraseAgent would remove (a preview of an erasure).
    async countAgent (agent) {
      const [state, agentProfile] = await Promise.all(['state', 'agentProfile'].map((resource) => col.countDocuments({ agent, resource }, { maxTimeMS: queryTimeoutMs })))
      return { state, agentProfile }
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
