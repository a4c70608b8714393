'use strict'

// Stores on SQLite (schema.js, `stores`): written by the writer, read here.
// A deleted store keeps its row (its number is never given again) until
// and after the writer has purged its data (writer-loop.js, write-deletion.js
// storePurgeSlice).

const { qualify, formerId, prefixBounds } = require('../../stores/store-keys')

const LIVE = 'deleted_at IS NULL'

function storesRepository (db, { writer }) {
  const all = db.prepare(`SELECT number, id, name, created_at, retention_days, forward_urls FROM stores WHERE ${LIVE} ORDER BY number`)
  const deleting = db.prepare('SELECT number, id, name, deleted_at FROM stores WHERE deleted_at IS NOT NULL AND purged_at IS NULL ORDER BY number')
  const documents = db.prepare('SELECT count(*) AS n, coalesce(sum(length(content)), 0) AS bytes FROM documents WHERE store IS ?')
  const attachmentsOf = db.prepare('SELECT count(*) AS n, coalesce(sum(length), 0) AS bytes FROM attachments WHERE sha2 > ? AND sha2 < ?')
  const defaultAttachments = db.prepare("SELECT count(*) AS n, coalesce(sum(length), 0) AS bytes FROM attachments WHERE sha2 NOT GLOB 's[0-9]*|*'")
  return {
    // 'created', 'taken' (the id), or 'full' (no more stores: 2,047, store-terms.js)
    create: ({ id, name }) => writer.call('storeCreate', { id, name }),
    // false when there is no such store
    rename: ({ id, name }) => writer.call('storeRename', { id, name }),
    // Statements kept `days` after they were stored (src/stores/retention.js;
    // null: for good). false when there is no such store.
    setRetention: ({ id, days }) => writer.call('storeRetention', { id, days }),
    // Gone at once for every request, its credentials with it; its data
    // is purged after, in the background. false: no such store, or the
    // default one.
    remove: ({ id }) => writer.call('storeDelete', { id }),
    // The upstreams its statements are forwarded to (src/forwarding/upstreams.js;
    // [] for none), their queued entries and dead letters of `dropUpstreams`
    // removed. false when there is no such store.
    setForwarding: ({ id, urls, dropUpstreams }) => writer.call('storeForwarding', { id, urls, dropUpstreams }),
    async all () {
      return all.all().map((r) => ({ number: r.number, id: r.id, name: r.name, createdAt: new Date(r.created_at), retentionDays: r.retention_days, forwardUrls: r.forward_urls ? JSON.parse(r.forward_urls) : [] }))
    },
    // Deleted stores whose data is still being purged.
    async deleting () {
      return deleting.all().map((r) => ({ number: r.number, id: formerId(r.id), name: r.name, deletedAt: new Date(r.deleted_at) }))
    },
    // What a store holds besides its statements (statements.count): its
    // documents and attachments, how many and their bytes.
    async holdings (number) {
      const docs = documents.get(number || null)
      const files = number ? attachmentsOf.get(...prefixBounds(qualify(number, ''))) : defaultAttachments.get()
      return { documents: docs.n, documentBytes: docs.bytes, attachments: files.n, attachmentBytes: files.bytes }
    }
  }
}

module.exports = { storesRepository }
