'use strict'

// Stores on SQLite (schema.js, `stores`): written by the writer, read here.

function storesRepository (db, { writer }) {
  const all = db.prepare('SELECT number, id, name, created_at FROM stores ORDER BY number')
  return {
    // 'created', 'taken' (the id), or 'full' (no more stores: 2,047, store-terms.js)
    create: ({ id, name }) => writer.call('storeCreate', { id, name }),
    // false when there is no such store
    rename: ({ id, name }) => writer.call('storeRename', { id, name }),
    async all () {
      return all.all().map((r) => ({ number: r.number, id: r.id, name: r.name, createdAt: new Date(r.created_at) }))
    }
  }
}

module.exports = { storesRepository }
