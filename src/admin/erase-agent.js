'use strict'

// A learner's right to be forgotten: removes every statement in which an
// agent appears (actor, object, Group members, context instructor and
// team, context agents and groups, and the same inside a SubStatement),
// its State and Agent Profile documents, attachments no other statement
// uses, and the statements' forwarding entries. Statements in which the
// agent is only the authority are kept: the authority is the credential
// that stored them, not a learner. Idempotent: a second run finds nothing.

const crypto = require('node:crypto')
const { agentKey } = require('../resources/agents/agent-keys')
const { queryFields } = require('../resources/statements/query-fields')
const { qualify } = require('../stores/store-keys')

const PAGE = 500

// Whether the agent appears in the statement other than as its authority.
function appearsIn (body, key) {
  const statement = JSON.parse(body)
  return queryFields(statement, undefined).relAgents.includes(key)
}

// A stable, non-reversible name for the audit log.
function agentDigest (key) {
  return crypto.createHash('sha256').update(key).digest('hex').slice(0, 16)
}

// The ids of the statements the agent appears in other than as their
// authority, a page at a time, in `store` (its number).
async function * idPages (storage, key, store) {
  let after = null
  for (;;) {
    const rows = await storage.statements.findByAgent(key, { after, limit: PAGE, store })
    if (!rows.length) return
    after = rows[rows.length - 1].position
    yield rows.filter((r) => appearsIn(r.body, key)).map((r) => r.id)
  }
}

// Required, never defaulted: a caller that forgot it would erase from, or
// preview, the default store whatever store its credential is of.
function storeNumber (store) {
  if (!Number.isInteger(store)) throw new TypeError('an erasure needs the number of its store')
  return store
}

// `store`: the number of the store it is erased from (0, the default one).
async function eraseAgent (storage, agent, { store }) {
  storeNumber(store)
  const key = agentKey(agent)
  const removed = { statements: 0, attachments: 0, forwardingEntries: 0, stateDocuments: 0, agentProfileDocuments: 0 }
  for await (const ids of idPages(storage, key, store)) {
    if (!ids.length) continue
    const counts = await storage.statements.erase(ids)
    removed.statements += counts.statements
    removed.attachments += counts.attachments
    removed.forwardingEntries += counts.forwardingEntries
  }
  const documents = await storage.documents.eraseAgent(qualify(store, key))
  removed.stateDocuments = documents.state
  removed.agentProfileDocuments = documents.agentProfile
  return { agentDigest: agentDigest(key), removed }
}

// What eraseAgent would remove, removing nothing (`lrs erase-agent
// --dry-run`): the statements it would find the same way, and the
// documents. Attachments and forwarding entries are counted by the erasure
// itself (which of them another statement still uses is known only then).
async function previewErasure (storage, agent, { store }) {
  storeNumber(store)
  const key = agentKey(agent)
  let statements = 0
  for await (const ids of idPages(storage, key, store)) statements += ids.length
  const documents = await storage.documents.countAgent(qualify(store, key))
  return { agentDigest: agentDigest(key), wouldRemove: { statements, stateDocuments: documents.state, agentProfileDocuments: documents.agentProfile } }
}

module.exports = { eraseAgent, previewErasure }
