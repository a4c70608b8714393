'use strict'

// Forwarders on SQLite (schema.js, `forwarders`): written by the writer,
// read here. A change moves the credentials' change mark, which every
// worker polls (src/forwarding/upstreams.js reads them again).

function forwardersRepository (db, { writer }) {
  const all = db.prepare('SELECT id, store, revision, definition, created_ms, updated_ms FROM forwarders ORDER BY store, created_ms, id')
  const toForwarder = (r) => ({ id: r.id, store: r.store, revision: r.revision, definition: JSON.parse(r.definition), createdAt: new Date(r.created_ms), updatedAt: new Date(r.updated_ms) })
  return {
    async all () {
      return all.all().map(toForwarder)
    },
    create: ({ id, store, definition }) => writer.call('forwarderCreate', { id, store, definition, at: Date.now() }),
    replace: ({ id, store, revision, definition }) => writer.call('forwarderReplace', { id, store, revision, definition, at: Date.now() }),
    remove: ({ id, store, upstream }) => writer.call('forwarderRemove', { id, store, upstream })
  }
}

module.exports = { forwardersRepository }
