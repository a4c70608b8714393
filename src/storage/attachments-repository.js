'use strict'

// Attachment contents, stored once per sha2: { _id: sha2, contentType, length, data }.
const { Binary } = require('mongodb')
const { insertManyReportingDuplicates } = require('./insert-many')

function attachmentsRepository (db, { queryTimeoutMs }) {
  const col = db.collection('attachments')
  return {
    async saveMany (attachments) {
      if (!attachments.length) return
      const docs = attachments.map((a) => ({ _id: a.sha2, contentType: a.contentType, length: a.body.length, data: new Binary(a.body) }))
      // Already stored under the same sha2 means the same bytes: nothing to do.
      await insertManyReportingDuplicates(col, docs)
    },
    async findMany (sha2s) {
      if (!sha2s.length) return new Map()
      const rows = await col.find({ _id: { $in: sha2s } }, { maxTimeMS: queryTimeoutMs }).toArray()
      return new Map(rows.map((r) => [r._id, { contentType: r.contentType, body: Buffer.from(r.data.buffer) }]))
    }
  }
}

module.exports = { attachmentsRepository }
