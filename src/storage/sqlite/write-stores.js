'use strict'

// The writes of the stores themselves (stores.js, src/stores/): creating
// one, renaming it, its retention and upstreams, and deleting it. Apart
// because each is one small transaction that changes what every request
// sees at once (a store's credentials, its forwarding, the default store's
// store term), while the data a deleted store leaves goes later, slice by
// slice (write-deletion.js).

const { STORE_SPAN, DEFAULT_TERM_FROM } = require('./store-terms')
const { deletedId } = require('../../stores/store-keys')
const { credentialsChanged } = require('./write-credentials')
const { dropForwarding, dropStoreForwarding } = require('./write-forwarding')
const { dropStoreRollups } = require('./report-rollups')

function storeWrites (ctx) {
  const { db, lastSeq, readDefaultFrom } = ctx
  const writeDefaultTermFrom = db.prepare(`INSERT INTO settings (name, value) VALUES ('${DEFAULT_TERM_FROM}', ?) ON CONFLICT (name) DO NOTHING`)

  return {
    // Stores (src/stores/): a new one takes the next number. 'created',
    // 'taken' (the id) or 'full' (store-terms.js, STORE_SPAN).
    storeCreate ({ id, name }) {
      if (db.prepare('SELECT 1 FROM stores WHERE id = ?').get(id)) return 'taken'
      const number = db.prepare('SELECT coalesce(max(number), 0) + 1 FROM stores').pluck().get()
      if (number >= STORE_SPAN) return 'full'
      if (ctx.defaultTermFrom === null) {
        writeDefaultTermFrom.run(String(lastSeq.get() || 0))
        ctx.defaultTermFrom = readDefaultFrom()
      }
      db.prepare('INSERT INTO stores (number, id, name, created_at) VALUES (?, ?, ?, ?)').run(number, id, name, Date.now())
      return 'created'
    },

    // false when there is no such store
    storeRename ({ id, name }) {
      return db.prepare('UPDATE stores SET name = ? WHERE id = ?').run(name, id).changes === 1
    },

    // false when there is no such store; `days` null: kept for good
    storeRetention ({ id, days }) {
      return db.prepare('UPDATE stores SET retention_days = ? WHERE id = ? AND deleted_at IS NULL').run(days, id).changes === 1
    },

    // false when there is no such store; `urls` [] for none. Workers read
    // them again when the change mark moves (upstreams.js).
    storeForwarding ({ id, urls, dropUpstreams }) {
      const changed = db.prepare('UPDATE stores SET forward_urls = ? WHERE id = ? AND deleted_at IS NULL').run(urls.length ? JSON.stringify(urls) : null, id).changes === 1
      if (!changed) return false
      for (const upstream of dropUpstreams) dropForwarding(db, upstream)
      credentialsChanged(db)
      return true
    },

    // A store's deletion: the store is gone for every request at once (its
    // credentials with it), and its data is purged after, slice by slice
    // (storePurgeSlice in write-deletion.js, writer-loop.js). false: no
    // such store (or the default one).
    storeDelete ({ id }) {
      const store = db.prepare('SELECT number FROM stores WHERE id = ? AND deleted_at IS NULL AND number > 0').get(id)
      if (!store) return false
      db.prepare('UPDATE stores SET id = ?, deleted_at = ?, forward_urls = NULL WHERE number = ?').run(deletedId(store.number, id), Date.now(), store.number)
      db.prepare('DELETE FROM credentials WHERE store = ?').run(store.number)
      db.prepare('DELETE FROM forwarders WHERE store = ?').run(store.number)
      db.prepare('DELETE FROM saved_reports WHERE store = ?').run(store.number)
      dropStoreRollups(db, store.number) // its statements go slice by slice; no report reads them from now on
      dropStoreForwarding(db, store.number)
      credentialsChanged(db) // also for a store without credentials: workers forget the tokens of it (bearer-tokens.js)
      return true
    }
  }
}

module.exports = { storeWrites }
