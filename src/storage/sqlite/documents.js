'use strict'

// State, Activity Profile and Agent Profile documents on SQLite: reads here
// on the worker's read connection, writes through the writer thread.

const { documentFields } = require('../document-fields')

function documentsRepository (db, { writer }) {
  const get = db.prepare('SELECT doc_id, content_type, content, etag, updated FROM documents WHERE key = ?')
  const toDoc = (key, value) => ({ key: key.id, ...documentFields(key, value), updated: value.updated.getTime(), content: value.content })
  return {
    async get (key) {
      const r = get.get(key.id)
      return r && { docId: r.doc_id, contentType: r.content_type, content: r.content, etag: r.etag, updated: new Date(r.updated) }
    },
    insert: (key, value) => writer.call('documentInsert', toDoc(key, value)),
    replace: (key, value, { etag = null, upsert = false } = {}) => writer.call('documentReplace', toDoc(key, value), { etag, upsert }),
    delete: (key, { etag = null } = {}) => writer.call('documentDelete', key.id, { etag }),
    async list ({ resource, scope, registration, since }) {
      const sql = ['resource = ?', 'scope = ?']
      const params = [resource, scope]
      if (registration !== undefined) { sql.push('registration IS ?'); params.push(registration || null) }
      if (since) { sql.push('updated > ?'); params.push(since.getTime()) }
      return db.prepare(`SELECT doc_id, updated FROM documents WHERE ${sql.join(' AND ')}`).all(params)
        .map((r) => ({ docId: r.doc_id, updated: new Date(r.updated) }))
    },
    deleteMany: ({ resource, scope, registration }) => writer.call('documentDeleteMany', { resource, scope, registration }),
    // Every State and Agent Profile document of an agent (erasure).
    eraseAgent: (agent) => writer.call('documentsEraseAgent', agent),
    // What eraseAgent would remove (a preview of an erasure).
    async countAgent (agent) {
      const count = (resource) => db.prepare('SELECT count(*) FROM documents WHERE agent = ? AND resource = ?').pluck().get(agent, resource)
      return { state: count('state'), agentProfile: count('agentProfile') }
    }
  }
}

module.exports = { documentsRepository }
