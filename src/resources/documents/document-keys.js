'use strict'

// Parameters of the document resources (Communication 2.3, 2.6, 2.7),
// validated, and turned into storage keys. The three resources differ only
// in which key parameters they take.

const crypto = require('node:crypto')
const { toUtcTimestamp } = require('../../validation/formats')
const { parameter: p } = require('../../validation/query-parameters')
const { agentKey } = require('../agents/agent-keys')
const { qualify } = require('../../stores/store-keys')

function sha1 (text) {
  return crypto.createHash('sha1').update(text).digest('hex')
}

// The query parameters of each method, declared for route.js (ajv checks
// them; /openapi.json lists them). spec: { resource, activityId: bool,
// agent: bool, registration: bool, deleteMany: bool, docParam: 'stateId'|'profileId' }
function documentQueries (spec) {
  const keys = {}
  if (spec.activityId) keys.activityId = { schema: p.iri, required: true, description: 'The Activity the documents belong to.' }
  if (spec.agent) keys.agent = { schema: p.agent, required: true, description: 'The Agent the documents belong to.' }
  if (spec.registration) keys.registration = { schema: p.uuid, description: 'The registration the documents belong to (none: those without).' }
  const id = (required, description) => ({ [spec.docParam]: { schema: p.name, required, description } })
  return {
    get: { ...keys, ...id(false, 'The document; omit to list the ids.'), since: { schema: p.timestamp, description: 'Only when listing: ids of documents updated after this instant.' } },
    write: { ...keys, ...id(true, 'The document.') },
    delete: { ...keys, ...id(!spec.deleteMany, spec.deleteMany ? 'The document; omit to delete all of them.' : 'The document.') }
  }
}

// Checked parameters -> the document's keys.
function documentKeys (spec, validator) {
  // `credential.store`: the store the documents are in. Its number is part
  // of the scope (and so of every key) and of the agent erasure finds them
  // by: no key of one store is a key of another (src/stores/store-keys.js).
  // The default store's keys are those from before stores.
  return function keysOf (params, { xapiVersion, credential }) {
    const store = credential.store
    const out = {}
    if (spec.activityId) out.activityId = params.activityId
    if (spec.agent) out.agent = agentKey(validator.parseActorParam(params.agent, xapiVersion))
    if (params.registration !== undefined) out.registration = params.registration.toLowerCase()
    if (params[spec.docParam] !== undefined) out.docId = params[spec.docParam]
    if (params.since !== undefined) out.since = new Date(Date.parse(toUtcTimestamp(params.since)))
    const scope = sha1(JSON.stringify(store ? [spec.resource, out.activityId || null, out.agent || null, store] : [spec.resource, out.activityId || null, out.agent || null]))
    out.scope = scope
    out.key = out.docId === undefined
      ? null
      : { id: sha1(JSON.stringify([scope, out.registration || null, out.docId])), resource: spec.resource, scope, registration: out.registration, docId: out.docId, agent: qualify(store, out.agent || null), store: store || null }
    return out
  }
}

module.exports = { documentQueries, documentKeys, sha1 }
