'use strict'

// GET /statements query parameters (Communication 2.1.3), each parsed and
// checked by one small function. Storage gets the result as plain values
// (src/storage/statement-query.js). Unknown parameters, and
// known ones in the wrong case, are 400 (Communication 3.2.s3.b4).

const { errors } = require('../../errors')
const { UUID, isValidTimestamp, toUtcTimestamp } = require('../../validation/formats')
const { agentKey } = require('./agent-keys')

const PARAMETERS = new Set(['statementId', 'voidedStatementId', 'agent', 'verb', 'activity', 'registration', 'related_activities',
  'related_agents', 'since', 'until', 'limit', 'format', 'attachments', 'ascending', 'more'])
const SINGLE_ALLOWED = new Set(['statementId', 'voidedStatementId', 'format', 'attachments'])

function bad (message) {
  throw errors.InvalidParameter(message)
}

function parseBoolean (name, value) {
  if (value === undefined) return false
  if (value !== 'true' && value !== 'false') bad(`${name} must be true or false`)
  return value === 'true'
}

function parseAgent (value, { validator, xapiVersion }) {
  return agentKey(validator.parseActorParam(value, xapiVersion))
}

function parseTime (name, value) {
  if (!isValidTimestamp(value)) bad(`${name} must be an ISO 8601 timestamp`)
  return new Date(Date.parse(toUtcTimestamp(value)))
}

// Returns a normalized description of the request, either
// { single: { id, voided } } or { query: {...} }.
function parseStatementQuery (params, { validator, xapiVersion, maxLimit }) {
  for (const name of Object.keys(params)) {
    if (!PARAMETERS.has(name)) bad(`unknown parameter "${name}"`)
    if (Array.isArray(params[name])) bad(`parameter "${name}" is given more than once`)
  }
  const format = params.format === undefined ? 'exact' : params.format
  if (!['exact', 'ids', 'canonical'].includes(format)) bad('format must be ids, exact or canonical')
  const attachments = parseBoolean('attachments', params.attachments)

  if (params.statementId !== undefined || params.voidedStatementId !== undefined) {
    for (const name of Object.keys(params)) if (!SINGLE_ALLOWED.has(name)) bad(`"${name}" cannot be combined with statementId or voidedStatementId`)
    if (params.statementId !== undefined && params.voidedStatementId !== undefined) bad('send statementId or voidedStatementId, not both')
    const id = params.statementId !== undefined ? params.statementId : params.voidedStatementId
    if (!UUID.test(id)) bad('statementId must be a UUID')
    return { single: { id: id.toLowerCase(), voided: params.voidedStatementId !== undefined }, format, attachments }
  }

  const query = {
    agent: params.agent !== undefined ? parseAgent(params.agent, { validator, xapiVersion }) : undefined,
    verb: params.verb,
    activity: params.activity,
    registration: params.registration,
    relatedAgents: parseBoolean('related_agents', params.related_agents),
    relatedActivities: parseBoolean('related_activities', params.related_activities),
    since: params.since !== undefined ? parseTime('since', params.since) : undefined,
    until: params.until !== undefined ? parseTime('until', params.until) : undefined,
    ascending: parseBoolean('ascending', params.ascending),
    limit: maxLimit
  }
  if (query.verb !== undefined && !validator.isIri(query.verb)) bad('verb must be an IRI')
  if (query.activity !== undefined && !validator.isIri(query.activity)) bad('activity must be an IRI')
  if (query.registration !== undefined) {
    if (!UUID.test(query.registration)) bad('registration must be a UUID')
    query.registration = query.registration.toLowerCase()
  }
  if (params.limit !== undefined) {
    if (!/^[0-9]+$/.test(params.limit)) bad('limit must be a non-negative integer')
    const n = Number(params.limit)
    query.limit = n === 0 ? maxLimit : Math.min(n, maxLimit) // 0 = the server maximum
  }
  return { query, format, attachments }
}

module.exports = { parseStatementQuery }
