'use strict'

// Attachment contents on SQLite, one row per sha2 (a blob holds the whole
// body limit; no chunks needed).

function attachmentsRepository (db, { writer }) {
  const get = db.prepare('SELECT content_type, content FROM attachments WHERE sha2 = ?')
  return {
    async saveMany (attachments) {
      if (attachments.length) await writer.call('attachmentsSave', attachments)
    },
    async findMany (sha2s) {
      const found = new Map()
      for (const sha2 of sha2s) {
        const r = get.get(sha2)
        if (r) found.set(sha2, { contentType: r.content_type, body: r.content })
      }
      return found
    }
  }
}

module.exports = { attachmentsRepository }
