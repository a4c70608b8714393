'use strict'

// Every index the LRS uses on MongoDB, ensured at start. Statements get one
// compound index per query shape: the equality fields first, then the sort
// key (stored, _id), so a query walks an index in order and stops at
// `limit`.
//
// On FerretDB (the MongoDB stand-in our tests run against) only `_id`
// equality is ever served from an index and every secondary index costs a
// large share of insert throughput (measured: five indexes cut insertMany
// from ~7,900 to ~1,750 documents/s), so there the collections are only
// created up front (which avoids a race between workers creating them on
// first insert).

const STATEMENT_INDEXES = [
  { key: { voided: 1, stored: -1, _id: -1 }, name: 'stored' },
  // a store's statements without another filter (statement-filter.js, storeFilter)
  { key: { store: 1, voided: 1, stored: -1, _id: -1 }, name: 'store_stored' },
  { key: { agents: 1, voided: 1, stored: -1, _id: -1 }, name: 'agent_stored' },
  { key: { verb: 1, voided: 1, stored: -1, _id: -1 }, name: 'verb_stored' },
  { key: { activities: 1, voided: 1, stored: -1, _id: -1 }, name: 'activity_stored' },
  { key: { registration: 1, voided: 1, stored: -1, _id: -1 }, name: 'registration_stored' },
  { key: { relAgents: 1, voided: 1, stored: -1, _id: -1 }, name: 'related_agent_stored' },
  { key: { relActivities: 1, voided: 1, stored: -1, _id: -1 }, name: 'related_activity_stored' },
  { key: { authorityKey: 1, voided: 1, stored: -1, _id: -1 }, name: 'authority_stored' },
  // a store's statements by the hour of their timestamp (reports, report-counts.js)
  { key: { store: 1, voided: 1, rh: 1 }, name: 'store_report_hour' },
  { key: { ref: 1 }, name: 'ref', sparse: true },
  // the targeted statements of a store (StatementRefs, Communication
  // 2.1.3.s3: statement-refs.js): a popular filter's few targeted
  // statements without fetching every statement of the filter
  { key: { store: 1, referenced: 1 }, name: 'store_referenced', partialFilterExpression: { referenced: true } },
  // whether a statement still uses an attachment (agent erasure)
  { key: { attachments: 1 }, name: 'attachments', sparse: true }
]

const INDEXES = {
  statements: STATEMENT_INDEXES,
  // _id is the unique document key; this serves the ids-list GETs and State multi-delete.
  documents: [
    { key: { resource: 1, scope: 1, updated: -1 }, name: 'scope_updated' },
    // State and Agent Profile documents of an agent (agent erasure)
    { key: { agent: 1 }, name: 'agent', partialFilterExpression: { agent: { $type: 'string' } } },
    // a deleted store's documents (store-purge.js)
    { key: { store: 1 }, name: 'store', partialFilterExpression: { store: { $type: 'number' } } }
  ],
  forward_outbox: [
    { key: { upstream: 1, leaseUntil: 1 }, name: 'upstream_lease' },
    { key: { statementIds: 1 }, name: 'statements' } // agent erasure (outbox.js)
  ],
  forward_dead_letters: [{ key: { statementId: 1 }, name: 'statement' }],
  forwarders: [{ key: { store: 1 }, name: 'store' }],
  // the id is the document key (_id); a unique index on `id`, a field no
  // store has, let MongoDB hold one store besides the default one (the
  // first versions made it; ensureIndexes drops it)
  stores: [{ key: { number: 1 }, name: 'number' }]
}
// forward_outbox's `statement`: its documents held one statement each before they held a batch
const DROPPED = { stores: ['id'], forward_outbox: ['statement'] }
const INDEX_NOT_FOUND = 27

const COLLECTIONS = ['statements', 'documents', 'credentials', 'attachments', 'attachment_chunks', 'forward_outbox', 'forward_dead_letters', 'forwarders', 'settings', 'locks', 'stores']

async function ensureIndexes (db, { engine }) {
  if (engine === 'ferretdb') {
    await Promise.all(COLLECTIONS.map((name) => db.createCollection(name).catch((err) => { if (err.code !== 48) throw err })))
    return
  }
  for (const [collection, names] of Object.entries(DROPPED)) {
    for (const name of names) await db.collection(collection).dropIndex(name).catch((err) => { if (err.code !== INDEX_NOT_FOUND && err.codeName !== 'NamespaceNotFound') throw err })
  }
  for (const [collection, indexes] of Object.entries(INDEXES)) await db.collection(collection).createIndexes(indexes)
}

module.exports = { ensureIndexes, STATEMENT_INDEXES, INDEXES, COLLECTIONS }
