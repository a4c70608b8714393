'use strict'

// Every index the LRS uses, ensured at start. Statements get one compound
// index per query shape, each ending in the sort key (stored, _id), so a
// query walks an index in order and stops at `limit`.
//
// FerretDB workaround: on FerretDB every secondary index costs a large part
// of insert throughput and most filters are not pushed down to indexes
// anyway (see shared/FERRETDB.md), so there we keep only the indexes that
// enforce uniqueness or serve the hot paths.

const STATEMENT_QUERY_INDEXES = [
  { key: { voided: 1, stored: -1, _id: -1 }, name: 'stored' },
  { key: { agents: 1, voided: 1, stored: -1, _id: -1 }, name: 'agent_stored' },
  { key: { verb: 1, voided: 1, stored: -1, _id: -1 }, name: 'verb_stored' },
  { key: { activities: 1, voided: 1, stored: -1, _id: -1 }, name: 'activity_stored' },
  { key: { registration: 1, voided: 1, stored: -1, _id: -1 }, name: 'registration_stored' },
  { key: { relAgents: 1, voided: 1, stored: -1, _id: -1 }, name: 'related_agent_stored' },
  { key: { relActivities: 1, voided: 1, stored: -1, _id: -1 }, name: 'related_activity_stored' }
]

const DOCUMENT_INDEXES = [
  // _id is the unique document key; these serve the ids-list GETs and State multi-delete.
  { key: { resource: 1, scope: 1, updated: -1 }, name: 'scope_updated' }
]

async function ensureIndexes (db, { engine }) {
  if (engine !== 'ferretdb') {
    await db.collection('statements').createIndexes(STATEMENT_QUERY_INDEXES)
    await db.collection('documents').createIndexes(DOCUMENT_INDEXES)
  } else {
    // Creating the collections up front avoids a race between workers creating them on first insert.
    await Promise.all(['statements', 'documents', 'credentials', 'attachments', 'activities']
      .map((name) => db.createCollection(name).catch((err) => { if (err.code !== 48) throw err })))
  }
}

module.exports = { ensureIndexes, STATEMENT_QUERY_INDEXES, DOCUMENT_INDEXES }
