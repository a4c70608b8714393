'use strict'

// The writes of the Document Resources (documents.js): the state, agent
// profile and activity profile documents, with their etag checks, and an
// agent's documents erased. Apart because documents share nothing with
// statements in the writer (no seq, no index rows, no counters): each is
// one row by its key, written or not as its etag says.

function documentWrites ({ db }) {
  return {
    documentInsert (doc) {
      return db.prepare(`INSERT INTO documents (key, resource, scope, registration, doc_id, content_type, etag, updated, content, agent, store)
        VALUES (@key, @resource, @scope, @registration, @docId, @contentType, @etag, @updated, @content, @agent, @store) ON CONFLICT (key) DO NOTHING`).run(doc).changes > 0
    },

    // Replaces when the stored etag is `etag` (any when null); `upsert` creates it when absent.
    documentReplace (doc, { etag, upsert }) {
      if (upsert) {
        return db.prepare(`INSERT INTO documents (key, resource, scope, registration, doc_id, content_type, etag, updated, content, agent, store)
          VALUES (@key, @resource, @scope, @registration, @docId, @contentType, @etag, @updated, @content, @agent, @store)
          ON CONFLICT (key) DO UPDATE SET content_type = excluded.content_type, etag = excluded.etag, updated = excluded.updated, content = excluded.content`).run(doc).changes > 0
      }
      const sql = `UPDATE documents SET content_type = @contentType, etag = @etag, updated = @updated, content = @content WHERE key = @key${etag === null ? '' : ' AND etag = @expected'}`
      return db.prepare(sql).run({ ...doc, expected: etag }).changes > 0
    },

    documentDelete (key, { etag }) {
      return etag === null
        ? db.prepare('DELETE FROM documents WHERE key = ?').run(key).changes > 0
        : db.prepare('DELETE FROM documents WHERE key = ? AND etag = ?').run(key, etag).changes > 0
    },

    documentDeleteMany ({ resource, scope, registration }) {
      if (registration === undefined) db.prepare('DELETE FROM documents WHERE resource = ? AND scope = ?').run(resource, scope)
      else db.prepare('DELETE FROM documents WHERE resource = ? AND scope = ? AND registration IS ?').run(resource, scope, registration || null)
    },

    // An agent's erasure: its state and agent profile documents.
    documentsEraseAgent (agent) {
      const count = (resource) => db.prepare('DELETE FROM documents WHERE agent = ? AND resource = ?').run(agent, resource).changes
      return { state: count('state'), agentProfile: count('agentProfile') }
    }
  }
}

module.exports = { documentWrites }
