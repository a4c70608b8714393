'use strict'

// The parameters of the /statements resource (Communication 2.1), each
// route's checked by one schema (validation/query-parameters.js); GET
// parameters are then turned into the statement query storage serves
// (src/storage/statement-query.js). Storage gets plain values only.

const { errors } = require('../../errors')
const { toUtcTimestamp } = require('../../validation/formats')
const { parameter: p } = require('../../validation/query-parameters')
const { agentKey } = require('../agents/agent-keys')

const GET = {
  properties: {
    statementId: p.uuid,
    voidedStatementId: p.uuid,
    agent: p.string,
    verb: p.iri,
    activity: p.iri,
    registration: p.uuid,
    related_agents: p.boolean,
    related_activities: p.boolean,
    since: p.timestamp,
    until: p.timestamp,
    limit: p.count,
    format: { enum: ['exact', 'ids', 'canonical'], description: 'ids, exact or canonical' },
    attachments: p.boolean,
    ascending: p.boolean
  }
}
const PUT = { properties: { statementId: p.uuid }, required: ['statementId'] }
const POST = { properties: {} }
const SINGLE_ALLOWED = new Set(['statementId', 'voidedStatementId', 'format', 'attachments'])

const instant = (value) => new Date(Date.parse(toUtcTimestamp(value)))

function statementParameters (validator) {
  const get = validator.queryParameters(GET)

  // A normalized description of a GET: { single: { id, voided } } or
  // { query }, with format and attachments.
  function parseGet (sent, { xapiVersion, maxLimit }) {
    const params = get(sent)
    const format = params.format || 'exact'
    const attachments = params.attachments === true
    if (params.statementId !== undefined || params.voidedStatementId !== undefined) {
      for (const name of Object.keys(params)) {
        if (!SINGLE_ALLOWED.has(name)) throw errors.InvalidParameter(`"${name}" cannot be combined with statementId or voidedStatementId`)
      }
      if (params.statementId !== undefined && params.voidedStatementId !== undefined) throw errors.InvalidParameter('send statementId or voidedStatementId, not both')
      const id = params.statementId !== undefined ? params.statementId : params.voidedStatementId
      return { single: { id: id.toLowerCase(), voided: params.voidedStatementId !== undefined }, format, attachments }
    }
    const query = {
      agent: params.agent !== undefined ? agentKey(validator.parseActorParam(params.agent, xapiVersion)) : undefined,
      verb: params.verb,
      activity: params.activity,
      registration: params.registration && params.registration.toLowerCase(),
      relatedAgents: params.related_agents === true,
      relatedActivities: params.related_activities === true,
      since: params.since !== undefined ? instant(params.since) : undefined,
      until: params.until !== undefined ? instant(params.until) : undefined,
      ascending: params.ascending === true,
      // 0 and anything above the maximum mean the server maximum.
      limit: params.limit === undefined || params.limit === 0 ? maxLimit : Math.min(params.limit, maxLimit)
    }
    return { query, format, attachments }
  }

  return { parseGet, parsePut: validator.queryParameters(PUT), parsePost: validator.queryParameters(POST) }
}

module.exports = { statementParameters }
