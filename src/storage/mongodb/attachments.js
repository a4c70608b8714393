'use strict'

// Attachment contents, stored once per sha2 and in chunks, because a
// MongoDB document holds at most 16 MiB and a request body may be larger:
//   attachments        { _id: sha2, contentType, length, chunks }
//   attachment_chunks  { _id: "<sha2>:<n>", data }
// Chunks are written before the description, so a description means the
// content is complete. Each chunk is read by _id (the one lookup FerretDB
// serves from an index).

const { Binary } = require('mongodb')
const { insertManyReportingDuplicates } = require('./insert-many')

const CHUNK_BYTES = 1024 * 1024

function attachmentsRepository (db, { queryTimeoutMs }) {
  const col = db.collection('attachments')
  const chunks = db.collection('attachment_chunks')
  const read = { maxTimeMS: queryTimeoutMs }

  async function load (meta) {
    const parts = await Promise.all(Array.from({ length: meta.chunks }, (_, n) => chunks.findOne({ _id: `${meta._id}:${n}` }, read)))
    if (parts.some((p) => !p)) return null
    return { contentType: meta.contentType, body: Buffer.concat(parts.map((p) => Buffer.from(p.data.buffer))) }
  }

  return {
    // Already stored under the same sha2 means the same bytes: nothing to do.
    async saveMany (attachments) {
      for (const a of attachments) {
        const docs = []
        for (let n = 0, at = 0; at < a.body.length || n === 0; n++, at += CHUNK_BYTES) {
          docs.push({ _id: `${a.sha2}:${n}`, data: new Binary(a.body.subarray(at, at + CHUNK_BYTES)) })
        }
        await insertManyReportingDuplicates(chunks, docs)
        await insertManyReportingDuplicates(col, [{ _id: a.sha2, contentType: a.contentType, length: a.body.length, chunks: docs.length }])
      }
    },
    // Removes one attachment's content; 1 if it was there.
    async remove (sha2) {
      const meta = await col.findOne({ _id: sha2 }, read)
      if (!meta) return 0
      await col.deleteOne({ _id: sha2 })
      for (let n = 0; n < meta.chunks; n++) await chunks.deleteOne({ _id: `${sha2}:${n}` })
      return 1
    },
    async findMany (sha2s) {
      const found = new Map()
      for (const sha2 of sha2s) {
        const meta = await col.findOne({ _id: sha2 }, read)
        const content = meta && await load(meta)
        if (content) found.set(sha2, content)
      }
      return found
    }
  }
}

module.exports = { attachmentsRepository }
