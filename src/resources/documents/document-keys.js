'use strict'

// Parameters of the document resources (Communication 2.3, 2.6, 2.7),
// validated, and turned into storage keys. The three resources differ only
// in which key parameters they take.

const crypto = require('node:crypto')
const { errors } = require('../../errors')
const { UUID, isValidTimestamp, toUtcTimestamp } = require('../../validation/formats')
const { agentKey } = require('../statements/agent-keys')

function bad (message) {
  throw errors.InvalidParameter(message)
}

function sha1 (text) {
  return crypto.createHash('sha1').update(text).digest('hex')
}

// spec: { resource, activityId: bool, agent: bool, registration: bool, docParam: 'stateId'|'profileId' }
function parseDocumentParams (spec, query, { validator, xapiVersion, method, allowSince }) {
  const allowed = new Set([spec.docParam])
  if (spec.activityId) allowed.add('activityId')
  if (spec.agent) allowed.add('agent')
  if (spec.registration) allowed.add('registration')
  if (allowSince) allowed.add('since')
  for (const name of Object.keys(query)) {
    if (!allowed.has(name)) bad(`unknown parameter "${name}" for ${method} ${spec.path}`)
    if (Array.isArray(query[name])) bad(`parameter "${name}" is given more than once`)
  }
  const out = {}
  if (spec.activityId) {
    if (query.activityId === undefined) bad('activityId is required')
    if (!validator.isIri(query.activityId)) bad('activityId must be an IRI')
    out.activityId = query.activityId
  }
  if (spec.agent) {
    if (query.agent === undefined) bad('agent is required')
    out.agent = agentKey(validator.parseActorParam(query.agent, xapiVersion))
  }
  if (spec.registration && query.registration !== undefined) {
    if (!UUID.test(query.registration)) bad('registration must be a UUID')
    out.registration = query.registration.toLowerCase()
  }
  if (query[spec.docParam] !== undefined) out.docId = query[spec.docParam]
  if (query.since !== undefined) {
    if (!isValidTimestamp(query.since)) bad('since must be an ISO 8601 timestamp')
    out.since = new Date(Date.parse(toUtcTimestamp(query.since)))
  }
  const scope = sha1(JSON.stringify([spec.resource, out.activityId || null, out.agent || null]))
  out.scope = scope
  out.key = out.docId === undefined
    ? null
    : { id: sha1(JSON.stringify([scope, out.registration || null, out.docId])), resource: spec.resource, scope, registration: out.registration, docId: out.docId }
  return out
}

module.exports = { parseDocumentParams, sha1 }
