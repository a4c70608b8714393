'use strict'

// The console's sign-in sessions on SQLite (src/console/sso/sessions.js
// says what they are). Read here, written by the writer.

function consoleSessionsRepository (db, { writer }) {
  // prepared at first use: the table is made by the writer's schema check,
  // which a worker's connection may open before
  let byHash = null
  return {
    create: (session) => writer.call('sessionCreate', session),
    async get (idHash) {
      byHash = byHash || db.prepare('SELECT data, created_ms, seen_ms FROM console_sessions WHERE id_hash = ?')
      const row = byHash.get(idHash)
      return row ? { data: row.data, createdAt: row.created_ms, seenAt: row.seen_ms } : null
    },
    touch: (idHash, at) => writer.call('sessionTouch', idHash, at),
    remove: (idHash) => writer.call('sessionRemove', idHash)
  }
}

module.exports = { consoleSessionsRepository }
