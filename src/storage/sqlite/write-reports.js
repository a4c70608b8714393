'use strict'

// The writes of saved reports (src/reports/, /admin/reports): a store's
// report definitions. Apart: they are the store admins' own data, written
// by hand, never by the statement path.

function reportWrites ({ db }) {
  return {
    // false when its store is gone
    savedReportCreate ({ id, store, name, definition, at }) {
      if (store !== 0 && !db.prepare('SELECT 1 FROM stores WHERE number = ? AND deleted_at IS NULL').get(store)) return false
      db.prepare('INSERT INTO saved_reports (id, store, revision, name, definition, created_ms, updated_ms) VALUES (?, ?, 1, ?, ?, ?, ?)').run(id, store, name, JSON.stringify(definition), at, at)
      return true
    },
    // 'changed', 'moved' (changed since `revision`) or 'missing'
    savedReportReplace ({ id, store, revision, name, definition, at }) {
      const { changes } = db.prepare('UPDATE saved_reports SET name = ?, definition = ?, revision = revision + 1, updated_ms = ? WHERE id = ? AND store = ? AND revision = ?').run(name, JSON.stringify(definition), at, id, store, revision)
      if (changes) return 'changed'
      return db.prepare('SELECT 1 FROM saved_reports WHERE id = ? AND store = ?').get(id, store) ? 'moved' : 'missing'
    },
    savedReportRemove ({ id, store }) {
      return db.prepare('DELETE FROM saved_reports WHERE id = ? AND store = ?').run(id, store).changes === 1
    }
  }
}

module.exports = { reportWrites }
