'use strict'

// The SQLite store as the source of a move to another engine (`lrs
// migrate`, src/transfer/migrate.js): every kind of data read as the file
// keeps it, each in its key order from a position, so that a move cut
// short goes on from where it got to.
//
// The LRS must not write meanwhile. A move refuses to start while a
// writer process answers on the store's socket (the LRS under PM2), and
// then holds the database file's write lock for the whole move (BEGIN
// IMMEDIATE on a connection of its own): an LRS started meanwhile, or one
// running with writer threads, cannot commit (its writes wait
// LRS_WRITER_WAIT_MS and get 503), so nothing changes under the copy. A
// check (`{ lock: false }`) reads in one read transaction instead: one
// snapshot, beside anything.

const fs = require('node:fs')
const net = require('node:net')
const { openDatabase, databaseFile } = require('./open')
const { makeSchema, MBOX_CASE, ID_TABLES } = require('./schema')
const { writerSocketPaths } = require('./writer-socket')
const { blobToId, idToBlob } = require('./ids')
const { storedOf } = require('./seq')
const { unpackBody } = require('./body-codec')
const { storeOf } = require('../../stores/store-keys')

// Whether something accepts connections on the Unix socket at `socketPath`.
function answers (socketPath) {
  return new Promise((resolve) => {
    const probe = net.createConnection(socketPath)
    probe.once('connect', () => { probe.destroy(); resolve(true) })
    probe.once('error', () => resolve(false))
  })
}

const date = (ms) => (ms === null || ms === undefined ? null : new Date(ms))
const placeholders = (n) => Array(n).fill('?').join(', ')
// keys to a look-up (SQLite takes 32,766 parameters; the ids' go to every id table)
const LOOKUP = 500

const statementRow = (r) => ({
  id: blobToId(r.id),
  store: r.store || 0,
  body: unpackBody(r.body),
  stored: typeof r.stored_ms === 'number' ? new Date(r.stored_ms) : storedOf(r.seq),
  timestampFromStored: r.ts === 1,
  voided: r.voided === 1,
  referenced: r.referenced === 1,
  position: String(r.seq)
})
const documentRow = (r) => ({
  key: r.key,
  resource: r.resource,
  scope: r.scope,
  registration: r.registration,
  docId: r.doc_id,
  agent: r.agent,
  store: r.store,
  contentType: r.content_type,
  etag: r.etag,
  updated: new Date(r.updated),
  content: r.content,
  position: r.key
})
const attachmentRow = (r) => ({ sha2: r.sha2, contentType: r.content_type, body: r.content, position: r.sha2 })
const forwardingRow = (dead) => (r) => ({
  upstream: r.upstream,
  statementId: blobToId(r.statement_id),
  enqueuedAt: new Date(r.enqueued_at),
  ...(dead ? { status: r.status, reason: r.reason, failedAt: new Date(r.failed_at) } : { leaseUntil: new Date(r.lease_until) }),
  position: JSON.stringify([r.upstream, r.statement_id.toString('hex')])
})

// Rows of `keys` by `select(chunk)` (an array of rows) a chunk at a time, as a Map by `keyOf`.
function byKeys (keys, select, keyOf) {
  const found = new Map()
  for (let i = 0; i < keys.length; i += LOOKUP) for (const row of select(keys.slice(i, i + LOOKUP))) found.set(keyOf(row), row)
  return found
}

function openSqliteMigrationSource (config, logger, { lock = true } = {}) {
  const file = databaseFile(config.dataDir)
  let db = null
  return {
    file,
    async open () {
      if (!fs.existsSync(file)) throw new Error(`no SQLite store at ${file} (LRS_DATA_DIR names the folder of lrs.sqlite)`)
      if (lock) {
        for (const socketPath of writerSocketPaths(config.dataDir, config.writerSocket)) {
          if (await answers(socketPath)) throw new Error(`an LRS is running on ${file}: its writer answers on ${socketPath}; stop it first (pm2 stop all)`)
        }
      }
      db = openDatabase(config.dataDir, { busyTimeoutMs: 10000 })
      makeSchema(db, logger) // an older file is brought up to date, as the LRS's start does
      try {
        db.exec(lock ? 'BEGIN IMMEDIATE' : 'BEGIN')
      } catch (err) {
        db.close()
        db = null
        if (err.code === 'SQLITE_BUSY') throw new Error(`${file} is being written (an LRS runs on it?): stop the LRS first`)
        throw err
      }
      if (!lock) db.prepare('SELECT count(*) FROM stores').get() // the snapshot starts at the first read
    },
    async close () {
      if (!db) return
      if (db.inTransaction) db.exec('ROLLBACK')
      db.close()
      db = null
    },

    // What names this store whatever its path: the default store's row is
    // made once, when the file is.
    identity () {
      return { engine: 'sqlite', createdAt: db.prepare('SELECT created_at FROM stores WHERE number = 0').pluck().get(), file }
    },
    // How much there is, to tell a store written since a move began.
    fingerprint () {
      const count = (table) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get()
      return {
        lastSeq: db.prepare('SELECT max(seq) FROM statements').pluck().get(),
        statements: count('statements'),
        documents: count('documents'),
        documentsUpdated: db.prepare('SELECT max(updated) FROM documents').pluck().get(),
        attachments: count('attachments'),
        credentials: count('credentials'),
        stores: count('stores'),
        outbox: count('forward_outbox'),
        deadLetters: count('forward_dead_letters')
      }
    },
    mboxCase () {
      return db.prepare('SELECT value FROM settings WHERE name = ?').pluck().get(MBOX_CASE) || 'domain'
    },
    // Every setting, as stored (the caller picks the ones another engine shares).
    settings () {
      return db.prepare('SELECT name, value FROM settings ORDER BY name').all()
    },
    // Every store, deleted ones too (their numbers are never given again).
    stores () {
      return db.prepare('SELECT number, id, name, created_at, deleted_at, purged_at, retention_days, forward_urls FROM stores ORDER BY number').all().map((r) => ({
        number: r.number,
        id: r.id, // '#<number>|<id>' for a deleted store (store-keys.js)
        name: r.name,
        createdAt: date(r.created_at),
        deletedAt: date(r.deleted_at),
        purgedAt: date(r.purged_at),
        retentionDays: r.retention_days,
        forwardUrls: r.forward_urls ? JSON.parse(r.forward_urls) : []
      }))
    },
    credentials () {
      return db.prepare('SELECT key, secret_hash, scopes, created_at, last_used, store FROM credentials ORDER BY key').all().map((r) => ({
        key: r.key, secretHash: r.secret_hash, scopes: JSON.parse(r.scopes), createdAt: date(r.created_at), lastUsedAt: date(r.last_used), store: r.store || 0
      }))
    },
    // Forwarders (src/forwarding/forwarders.js), their secrets sealed as stored.
    forwarders () {
      return db.prepare('SELECT id, store, revision, definition, created_ms, updated_ms FROM forwarders ORDER BY id').all().map((r) => ({
        id: r.id, store: r.store, revision: r.revision, definition: JSON.parse(r.definition), createdAt: new Date(r.created_ms), updatedAt: new Date(r.updated_ms)
      }))
    },
    // Saved reports (src/reports/, /admin/reports).
    savedReports () {
      return db.prepare('SELECT * FROM saved_reports ORDER BY id').all().map((r) => ({
        id: r.id, store: r.store, revision: r.revision, name: r.name, definition: JSON.parse(r.definition), createdAt: new Date(r.created_ms), updatedAt: new Date(r.updated_ms)
      }))
    },
    // Documents by key after `after` (a key; null: from the first).
    documents ({ after = null, limit }) {
      return db.prepare('SELECT * FROM documents WHERE key > ? ORDER BY key LIMIT ?').all(after ?? '', limit).map(documentRow)
    },
    // Attachments by sha2 (qualified with their store's prefix) after `after`.
    attachments ({ after = null, limit }) {
      return db.prepare('SELECT sha2, content_type, content FROM attachments WHERE sha2 > ? ORDER BY sha2 LIMIT ?').all(after ?? '', limit).map(attachmentRow)
    },
    // Statements in stored order (seq) after the position `after`, every
    // store's and voided ones too: { id (qualified), store, body (as kept:
    // without stored), stored, timestampFromStored, voided, referenced, position }.
    statements ({ after = null, limit }) {
      return db.prepare('SELECT seq, id, ts, body, stored_ms, voided, referenced, store FROM statements WHERE seq > ? ORDER BY seq LIMIT ?').all(after === null ? -1 : Number(after), limit).map(statementRow)
    },
    // Voiding and StatementRef flags waiting for statements not stored yet.
    pendingFlags () {
      return db.prepare('SELECT id, voided, referenced FROM pending_flags ORDER BY id').all()
        .map((r) => ({ id: blobToId(r.id), voided: r.voided === 1, referenced: r.referenced === 1 }))
    },
    // Forwarding entries waiting (`dead`: the dead letters instead), by
    // upstream and statement after `after` (a position from an earlier page).
    forwarding ({ dead = false, after = null, limit }) {
      const table = dead ? 'forward_dead_letters' : 'forward_outbox'
      const [upstream, statement] = after === null ? ['', ''] : JSON.parse(after)
      return db.prepare(`SELECT * FROM ${table} WHERE (upstream, statement_id) > (?, ?) ORDER BY upstream, statement_id LIMIT ?`)
        .all(upstream, Buffer.from(statement, 'hex'), limit).map(forwardingRow(dead))
    },

    // The same rows by their keys (the comparison: what the target holds,
    // looked up here), as Maps by key. Statements are found by their ids in
    // the id index, as GET by id finds them.
    statementsByIds (ids) {
      return byKeys(ids, (chunk) => {
        const blobs = chunk.map(idToBlob)
        const seqs = ID_TABLES.map((table) => `SELECT seq FROM ${table} WHERE id IN (${placeholders(blobs.length)})`).join(' UNION ')
        return db.prepare(`SELECT seq, id, ts, body, stored_ms, voided, referenced, store FROM statements WHERE seq IN (${seqs})`).all(ID_TABLES.flatMap(() => blobs)).map(statementRow)
      }, (r) => r.id)
    },
    documentsByKeys (keys) {
      return byKeys(keys, (chunk) => db.prepare(`SELECT * FROM documents WHERE key IN (${placeholders(chunk.length)})`).all(chunk).map(documentRow), (r) => r.key)
    },
    attachmentsBySha2 (sha2s) {
      return byKeys(sha2s, (chunk) => db.prepare(`SELECT sha2, content_type, content FROM attachments WHERE sha2 IN (${placeholders(chunk.length)})`).all(chunk).map(attachmentRow), (r) => r.sha2)
    },
    // entries: [{ upstream, statementId }]
    forwardingByKeys (entries, { dead = false }) {
      const select = db.prepare(`SELECT * FROM ${dead ? 'forward_dead_letters' : 'forward_outbox'} WHERE upstream = ? AND statement_id = ?`)
      const toRow = forwardingRow(dead)
      return byKeys(entries, (chunk) => chunk.map((e) => select.get(e.upstream, idToBlob(e.statementId))).filter(Boolean).map(toRow), (r) => `${r.upstream} ${r.statementId}`)
    },
    // How many of each kind belong to the stores numbered in `live`
    // (documents of the default store have none: null).
    keptCounts (live) {
      const sum = (rows) => rows.reduce((n, r) => n + (live.has(r.store) ? r.n : 0), 0)
      const byPrefix = (sql) => {
        const counts = new Map()
        for (const key of db.prepare(sql).pluck().iterate()) {
          const store = typeof key === 'string' ? storeOf(key) : key.length === 20 ? key.readUInt32BE(16) : 0 // a hash, or an id blob (ids.js)
          counts.set(store, (counts.get(store) || 0) + 1)
        }
        return [...counts].map(([store, n]) => ({ store, n }))
      }
      return {
        statements: sum(db.prepare('SELECT coalesce(store, 0) AS store, count(*) AS n FROM statements GROUP BY 1').all()),
        documents: sum(db.prepare('SELECT coalesce(store, 0) AS store, count(*) AS n FROM documents GROUP BY 1').all()),
        attachments: sum(byPrefix('SELECT sha2 FROM attachments')),
        outbox: sum(byPrefix('SELECT statement_id FROM forward_outbox')),
        deadLetters: sum(byPrefix('SELECT statement_id FROM forward_dead_letters'))
      }
    }
  }
}

module.exports = { openSqliteMigrationSource }
