'use strict'

// Parameters of the document resources (Communication 2.3, 2.6, 2.7),
// validated, and turned into storage keys. The three resources differ only
// in which key parameters they take.

const crypto = require('node:crypto')
const { toUtcTimestamp } = require('../../validation/formats')
const { parameter: p } = require('../../validation/query-parameters')
const { agentKey } = require('../agents/agent-keys')

function sha1 (text) {
  return crypto.createHash('sha1').update(text).digest('hex')
}

// spec: { resource, activityId: bool, agent: bool, registration: bool, docParam: 'stateId'|'profileId' }
// Returns parse(query, { xapiVersion, allowSince }) -> the document's keys.
function documentParameters (spec, validator) {
  const properties = { [spec.docParam]: p.name }
  const required = []
  if (spec.activityId) { properties.activityId = p.iri; required.push('activityId') }
  if (spec.agent) { properties.agent = p.string; required.push('agent') }
  if (spec.registration) properties.registration = p.uuid
  const one = validator.queryParameters({ properties, required })
  const list = validator.queryParameters({ properties: { ...properties, since: p.timestamp }, required })

  return function parse (query, { xapiVersion, allowSince }) {
    const params = (allowSince ? list : one)(query)
    const out = {}
    if (spec.activityId) out.activityId = params.activityId
    if (spec.agent) out.agent = agentKey(validator.parseActorParam(params.agent, xapiVersion))
    if (params.registration !== undefined) out.registration = params.registration.toLowerCase()
    if (params[spec.docParam] !== undefined) out.docId = params[spec.docParam]
    if (params.since !== undefined) out.since = new Date(Date.parse(toUtcTimestamp(params.since)))
    const scope = sha1(JSON.stringify([spec.resource, out.activityId || null, out.agent || null]))
    out.scope = scope
    out.key = out.docId === undefined
      ? null
      : { id: sha1(JSON.stringify([scope, out.registration || null, out.docId])), resource: spec.resource, scope, registration: out.registration, docId: out.docId, agent: out.agent || null }
    return out
  }
}

module.exports = { documentParameters, sha1 }
