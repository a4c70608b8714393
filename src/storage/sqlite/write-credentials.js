'use strict'

// The writes of who may come in: the API's credentials (credentials.js)
// and the console's sessions (console-sessions.js), with the change mark
// that workers poll to apply credential changes. Apart because these are
// small, rare writes that every worker must hear of soon after (the mark),
// unlike the statement path's, and the stores' and forwarders' writes move
// the same mark.

// Every worker polls this counter to apply credential changes within a
// second (credential-store.js).
function credentialsChanged (db) {
  db.prepare(`INSERT INTO settings (name, value) VALUES ('credentials_changed', '1')
    ON CONFLICT (name) DO UPDATE SET value = CAST(value AS INTEGER) + 1`).run()
}

function credentialWrites ({ db }) {
  return {
    credentialUpsert ({ key, secretHash, scopes, store = 0 }) {
      const before = db.prepare('SELECT secret_hash, scopes, store FROM credentials WHERE key = ?').get(key)
      if (before && before.secret_hash === secretHash && before.scopes === JSON.stringify(scopes) && before.store === store) return
      db.prepare(`INSERT INTO credentials (key, secret_hash, scopes, created_at, store) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET secret_hash = excluded.secret_hash, scopes = excluded.scopes, store = excluded.store`).run(key, secretHash, JSON.stringify(scopes), Date.now(), store)
      credentialsChanged(db)
    },

    // false when the key exists already
    credentialCreate ({ key, secretHash, scopes, store = 0 }) {
      const { changes } = db.prepare('INSERT INTO credentials (key, secret_hash, scopes, created_at, store) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING')
        .run(key, secretHash, JSON.stringify(scopes), Date.now(), store)
      if (changes) credentialsChanged(db)
      return changes === 1
    },

    // false when there is no such key
    credentialSetScopes (key, scopes) {
      const { changes } = db.prepare('UPDATE credentials SET scopes = ? WHERE key = ?').run(JSON.stringify(scopes), key)
      if (changes) credentialsChanged(db)
      return changes === 1
    },

    // Not a change of the credential (no credentialsChanged): workers need
    // not read it again.
    credentialUsed (key, at) {
      db.prepare('UPDATE credentials SET last_used = max(coalesce(last_used, 0), ?) WHERE key = ?').run(at, key)
    },

    credentialRemove (key) {
      const { changes } = db.prepare('DELETE FROM credentials WHERE key = ?').run(key)
      if (changes) credentialsChanged(db)
      return changes === 1
    },

    // The console's sessions (console-sessions.js). A new one first removes
    // those whose time is up, so the table holds live sessions only.
    sessionCreate ({ idHash, data, at, idleBefore, createdBefore }) {
      db.prepare('DELETE FROM console_sessions WHERE seen_ms < ? OR created_ms < ?').run(idleBefore, createdBefore)
      db.prepare('INSERT INTO console_sessions (id_hash, data, created_ms, seen_ms) VALUES (?, ?, ?, ?)').run(idHash, data, at, at)
    },
    sessionTouch (idHash, at) {
      db.prepare('UPDATE console_sessions SET seen_ms = max(seen_ms, ?) WHERE id_hash = ?').run(at, idHash)
    },
    sessionRemove (idHash) {
      return db.prepare('DELETE FROM console_sessions WHERE id_hash = ?').run(idHash).changes === 1
    }
  }
}

module.exports = { credentialWrites, credentialsChanged }
