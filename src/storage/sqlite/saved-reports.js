'use strict'

// Saved reports on SQLite (schema.js, saved_reports): written by the
// writer (write-reports.js), read here.

function savedReportsRepository (db, { writer }) {
  const ofStore = db.prepare('SELECT * FROM saved_reports WHERE store = ? ORDER BY name, id')
  const one = db.prepare('SELECT * FROM saved_reports WHERE id = ? AND store = ?')
  const toReport = (r) => ({ id: r.id, store: r.store, revision: r.revision, name: r.name, definition: JSON.parse(r.definition), createdAt: new Date(r.created_ms), updatedAt: new Date(r.updated_ms) })
  return {
    async list ({ store }) {
      return ofStore.all(store).map(toReport)
    },
    async get ({ id, store }) {
      const r = one.get(id, store)
      return r ? toReport(r) : null
    },
    create: ({ id, store, name, definition }) => writer.call('savedReportCreate', { id, store, name, definition, at: Date.now() }),
    replace: ({ id, store, revision, name, definition }) => writer.call('savedReportReplace', { id, store, revision, name, definition, at: Date.now() }),
    remove: ({ id, store }) => writer.call('savedReportRemove', { id, store })
  }
}

module.exports = { savedReportsRepository }
