'use strict'

// A MongoDB database as the target of a move from another engine (`lrs
// migrate`, src/transfer/migrate.js): every kind of data written as this
// engine keeps it (the repositories' documents, field for field), each
// write idempotent (an insert that finds its _id taken, or a replace by
// _id), so a move cut short and started again writes nothing twice; and
// read back for the comparison (`lrs migrate --verify`), the large kinds
// by a scan of their collection. Statements go through the repository's
// insertStored, as an import's do. On FerretDB a find, replace or update
// by an _id reads the table up to it (3.7 s at the end of 470,000
// statements), so nothing large is written or read one key at a time.
//
// The move's own record is the setting MARKER: which store it copies,
// and how far it got.

const { Binary } = require('mongodb')
const { openMongoStorage } = require('./index')
const { byId } = require('./by-id')
const { insertManyReportingDuplicates } = require('./insert-many')
const { documentFields } = require('../document-fields')
const { idsOf } = require('./outbox')

const MARKER = 'migrated-from'
const STORE_COUNTER = 'store_numbers' // stores.js
// FerretDB 1.24 never answers a bulkWrite of 100 or more upserts (statements.js)
const FERRET_UPSERTS = 50
const UPSERTS = 1000
// Collections that hold data; settings and locks are the LRS's own.
const DATA = ['statements', 'documents', 'attachments', 'credentials', 'stores', 'forwarders', 'saved_reports', 'forward_outbox', 'forward_dead_letters']

// one outbox document per entry: written again after a stop, it finds its _id taken
const entryId = (e) => `${e.upstream} ${e.statementId}` // outbox.js

// Rows in the shapes the source reads (sqlite/migration-source.js).
const STATEMENT_FIELDS = { body: 1, stored: 1, ts: 1, voided: 1, referenced: 1, awaitingStatement: 1 }
const statementOf = (r) => ({ id: r._id, body: r.body, stored: r.stored, timestampFromStored: r.ts === true, voided: r.voided === true, referenced: r.referenced === true, marker: r.awaitingStatement === true })
const documentOf = (r) => ({
  key: r._id, resource: r.resource, scope: r.scope, registration: r.registration, docId: r.docId, agent: r.agent, store: r.store, contentType: r.contentType, etag: r.etag, updated: r.updated, content: Buffer.from(r.content.buffer)
})
// a dead letter is one statement's; a queued document holds a batch (outbox.js)
const forwardingOf = (dead) => (r) => dead
  ? [{ upstream: r.upstream, statementId: r.statementId, enqueuedAt: r.enqueuedAt, status: r.status, reason: r.reason, failedAt: r.failedAt }]
  : idsOf(r).map((statementId) => ({ upstream: r.upstream, statementId, enqueuedAt: r.enqueuedAt, leaseUntil: r.leaseUntil }))

function openMongoMigrationTarget (config, logger) {
  const storage = openMongoStorage(config, logger)
  const { db } = storage.internals
  const isFerret = () => storage.engine === 'ferretdb'
  const read = { maxTimeMS: config.queryTimeoutMs }
  const col = (name) => db.collection(name)
  const ids = (name) => byId(col(name), { isFerret, locks: null, maxTimeMS: config.queryTimeoutMs })
  const settings = col('settings')

  // Replaces each doc by its _id, inserting it when absent (the few
  // settings, stores and credentials).
  async function replaceAll (name, docs) {
    const size = isFerret() ? FERRET_UPSERTS : UPSERTS
    for (let i = 0; i < docs.length; i += size) {
      await col(name).bulkWrite(docs.slice(i, i + size).map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } })), { ordered: false })
    }
  }

  const storeDoc = (s) => ({
    _id: s.id,
    number: s.number,
    name: s.name,
    createdAt: s.createdAt,
    ...(s.retentionDays !== null && { retentionDays: s.retentionDays }),
    ...(s.forwardUrls.length && !s.deletedAt && { forwardUrls: s.forwardUrls }),
    ...(s.deletedAt && { deletedAt: s.deletedAt }),
    ...(s.purgedAt && { purgedAt: s.purgedAt })
  })

  return {
    get engine () { return storage.engine },
    ready: storage.ready,
    statements: storage.statements,
    attachments: storage.attachments,
    close: () => storage.close(),

    async marker () {
      const row = await settings.findOne({ _id: MARKER }, read)
      return row ? row.value : null
    },
    saveMarker: (value) => settings.replaceOne({ _id: MARKER }, { _id: MARKER, value }, { upsert: true }),
    // The first collection that holds data, or null for an empty database.
    async holdsData () {
      for (const name of DATA) if (await col(name).findOne({}, { projection: { _id: 1 }, ...read })) return name
      return null
    },

    writeSettings: (list) => replaceAll('settings', list.map(({ name, value }) => ({ _id: name, value }))),
    // Every store, deleted ones under their '#<n>|<id>' (stores.js); new
    // stores get numbers after the largest.
    async writeStores (list) {
      await replaceAll('stores', list.map(storeDoc))
      const largest = Math.max(0, ...list.map((s) => s.number))
      await settings.updateOne({ _id: STORE_COUNTER }, { $max: { value: largest } }, { upsert: true })
    },
    // as forwarders.js keeps them (secrets sealed under LRS_SECRETS_KEY, whatever the engine)
    writeForwarders: (list) => replaceAll('forwarders', list.map((f) => ({ _id: f.id, store: f.store, revision: f.revision, definition: f.definition, createdAt: f.createdAt, updatedAt: f.updatedAt }))),
    writeSavedReports: (list) => replaceAll('saved_reports', list.map((r) => ({ _id: r.id, store: r.store, revision: r.revision, name: r.name, definition: r.definition, createdAt: r.createdAt, updatedAt: r.updatedAt }))),
    writeCredentials: (list) => replaceAll('credentials', list.map((c) => ({
      _id: c.key, secretHash: c.secretHash, scopes: c.scopes, store: c.store, createdAt: c.createdAt, ...(c.lastUsedAt && { lastUsedAt: c.lastUsedAt })
    }))),
    // As documents.js keeps them. Inserted, a key there already left as it
    // is (the same document, from an earlier run: the source has not
    // changed since): a replace by _id would look each key up first, on
    // FerretDB a scan of the collection.
    writeDocuments: (list) => insertManyReportingDuplicates(col('documents'), list.map((d) => ({
      _id: d.key, ...documentFields(d, d), content: new Binary(d.content), length: d.content.length, updated: d.updated
    }))),
    writeAttachments: (list) => storage.attachments.saveMany(list),
    // Statements (records with `stored`) through insertStored; then the
    // flags the source had (a voided statement whose voiding statement an
    // erasure removed keeps its flag there too). Returns the ids found
    // stored already. `present` (statementsPresent): what is there of a
    // chunk an earlier run may have written in part, left out (insertStored
    // would read each taken id again, on FerretDB a scan of the collection
    // for each).
    async writeStatements (records, { voided, referenced, present = null }) {
      const there = present ? records.filter((r) => present.get(r.id) === 'statement').map((r) => r.id) : []
      if (there.length) records = records.filter((r) => present.get(r.id) !== 'statement')
      const taken = [...there, ...await storage.statements.insertStored(records)]
      if (voided.length) await ids('statements').updateMany(voided, { voided: true })
      if (referenced.length) await ids('statements').updateMany(referenced, { referenced: true })
      return taken
    },
    // Which of `list` (statement ids) are there: Map id -> 'statement' |
    // 'marker'. One query: on FerretDB a find by one _id reads the whole
    // collection as a find of thousands does (3.7 s and 60 s at 294,000
    // statements), so a resumed move asks once.
    async statementsPresent (list) {
      const found = await col('statements').find({ _id: { $in: list } }, { projection: { awaitingStatement: 1 } }).toArray()
      return new Map(found.map((d) => [d._id, d.awaitingStatement === true ? 'marker' : 'statement']))
    },
    // Voiding and StatementRef flags for statements not stored (statements.js's markers).
    async writePendingFlags (list) {
      for (const p of list) {
        const flags = { ...(p.voided && { voided: true }), ...(p.referenced && { referenced: true }) }
        await col('statements').updateOne({ _id: p.id }, { $set: flags, $setOnInsert: { awaitingStatement: true } }, { upsert: true })
      }
    },
    // Queued forwarding entries (`dead`: dead letters), as outbox.js keeps them.
    async writeForwarding (list, { dead = false }) {
      const docs = list.map((e) => ({
        _id: entryId(e), upstream: e.upstream, enqueuedAt: e.enqueuedAt,
        ...(dead ? { statementId: e.statementId, status: e.status, reason: e.reason, failedAt: e.failedAt } : { statementIds: [e.statementId], leaseUntil: e.leaseUntil })
      }))
      await insertManyReportingDuplicates(col(dead ? 'forward_dead_letters' : 'forward_outbox'), docs)
    },

    // The comparison's reads, in the shapes the source reads.
    async settings (names) {
      return (await ids('settings').findMany(names)).map((r) => ({ name: r._id, value: r.value }))
    },
    async stores () {
      return (await col('stores').find({}, read).sort({ number: 1 }).toArray()).map((r) => ({
        number: r.number, id: r._id, name: r.name, createdAt: r.createdAt || null, deletedAt: r.deletedAt || null, purgedAt: r.purgedAt || null, retentionDays: r.retentionDays ?? null, forwardUrls: r.forwardUrls || []
      }))
    },
    async forwarders () {
      return (await col('forwarders').find({}, read).sort({ _id: 1 }).toArray()).map((r) => ({ id: r._id, store: r.store, revision: r.revision, definition: r.definition, createdAt: r.createdAt, updatedAt: r.updatedAt }))
    },
    async savedReports () {
      return (await col('saved_reports').find({}, read).sort({ _id: 1 }).toArray()).map((r) => ({ id: r._id, store: r.store, revision: r.revision, name: r.name, definition: r.definition, createdAt: r.createdAt, updatedAt: r.updatedAt }))
    },
    async credentials () {
      return (await col('credentials').find({}, read).sort({ _id: 1 }).toArray()).map((r) => ({
        key: r._id, secretHash: r.secretHash, scopes: r.scopes || [], createdAt: r.createdAt || null, lastUsedAt: r.lastUsedAt || null, store: r.store || 0
      }))
    },
    // Every row of a kind (statements: markers included), in batches, in
    // the order the database reads them: a collection scan, which FerretDB
    // serves at about 5,000 statements/s where it finds one by _id in 2 ms.
    async * scan (kind, { batch = 2000 } = {}) {
      const [collection, toRow] = {
        statements: ['statements', (r) => [statementOf(r)]],
        documents: ['documents', (r) => [documentOf(r)]],
        attachments: ['attachments', (r) => [r._id]],
        outbox: ['forward_outbox', forwardingOf(false)],
        deadLetters: ['forward_dead_letters', forwardingOf(true)]
      }[kind]
      const projection = kind === 'statements' ? STATEMENT_FIELDS : kind === 'attachments' ? { _id: 1 } : undefined
      const ready = async (rows) => {
        if (kind !== 'attachments') return rows
        const found = await storage.attachments.findMany(rows)
        return rows.map((sha2) => ({ sha2, ...(found.get(sha2) || { contentType: null, body: null }) }))
      }
      let rows = []
      for await (const doc of col(collection).find({}, { projection, batchSize: batch })) {
        rows.push(...toRow(doc))
        if (rows.length >= batch) {
          yield await ready(rows)
          rows = []
        }
      }
      if (rows.length) yield await ready(rows)
    },
    // Documents in each data collection (statements: markers included).
    async counts () {
      const out = {}
      for (const name of DATA) out[name] = await col(name).countDocuments({}, read)
      return out
    }
  }
}

module.exports = { openMongoMigrationTarget, MARKER }
