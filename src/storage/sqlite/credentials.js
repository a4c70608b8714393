'use strict'

// Credentials on SQLite.

function credentialsRepository (db, { writer }) {
  const all = db.prepare('SELECT key, secret_hash, scopes FROM credentials')
  return {
    upsert: (credential) => writer.call('credentialUpsert', credential),
    async all () {
      return all.all().map((r) => ({ key: r.key, secretHash: r.secret_hash, scopes: JSON.parse(r.scopes) }))
    }
  }
}

module.exports = { credentialsRepository }
