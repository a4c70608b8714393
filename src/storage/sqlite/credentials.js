'use strict'

// Credentials on SQLite.

function credentialsRepository (db, { writer }) {
  const all = db.prepare('SELECT key, secret_hash, scopes, created_at, last_used, store FROM credentials ORDER BY key')
  const changes = db.prepare("SELECT value FROM settings WHERE name = 'credentials_changed'").pluck()
  return {
    upsert: (credential) => writer.call('credentialUpsert', credential),
    create: (credential) => writer.call('credentialCreate', credential),
    setScopes: (key, scopes) => writer.call('credentialSetScopes', key, scopes),
    remove: (key) => writer.call('credentialRemove', key),
    // `at`: ms; an earlier time than the one kept leaves it
    recordUse: (key, at) => writer.call('credentialUsed', key, at),
    async all () {
      return all.all().map((r) => ({ key: r.key, secretHash: r.secret_hash, scopes: JSON.parse(r.scopes), createdAt: new Date(r.created_at), lastUsedAt: r.last_used === null ? null : new Date(r.last_used), store: r.store }))
    },
    // A value that changes whenever a credential does.
    async changeMark () {
      return String(changes.get() ?? 0)
    }
  }
}

module.exports = { credentialsRepository }
