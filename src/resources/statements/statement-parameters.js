'use strict'

// The parameters of the /statements resource (Communication 2.1), each
// route's declared here and checked by one schema (src/http/route.js,
// validation/query-parameters.js); GET parameters are then turned into the
// statement query storage serves
// (src/storage/statement-query.js). Storage gets plain values only.

const { errors } = require('../../errors')
const { toUtcTimestamp } = require('../../validation/formats')
const { parameter: p } = require('../../validation/query-parameters')
const { agentKey } = require('../agents/agent-keys')

const FLAG = { schema: p.boolean, default: false }

// Each route's parameters: the schema ajv checks them with (route.js) and
// what /openapi.json says of them.
const GET = {
  statementId: { schema: p.uuid, description: 'The statement with this id, unless voided. Combines only with `format` and `attachments`.' },
  voidedStatementId: { schema: p.uuid, description: 'The voided statement with this id. Combines only with `format` and `attachments`.' },
  agent: { schema: p.agent, description: 'Statements whose actor or object is this Agent or Group (anywhere in the statement with `related_agents`).' },
  verb: { schema: p.iri, description: 'Statements with this verb id.' },
  activity: { schema: p.iri, description: 'Statements whose object is this Activity (anywhere in the statement with `related_activities`).' },
  registration: { schema: p.uuid, description: 'Statements with this context registration.' },
  related_activities: { ...FLAG, description: 'Widen `activity` to context activities and SubStatements.' },
  related_agents: { ...FLAG, description: 'Widen `agent` to authority, instructor, team, context agents and groups, and SubStatements.' },
  since: { schema: p.timestamp, description: 'Only statements stored after this instant (exclusive).' },
  until: { schema: p.timestamp, description: 'Only statements stored at or before this instant (inclusive).' },
  limit: { schema: p.count, default: 0, description: 'Statements per page; 0 or more than LRS_STATEMENTS_MAX_LIMIT (default 100) mean that maximum.' },
  format: {
    schema: { enum: ['exact', 'ids', 'canonical'], description: 'ids, exact or canonical' },
    default: 'exact',
    description: '`ids`: agents, activities and verbs by identifier only; `canonical`: language maps reduced to the best Accept-Language match.'
  },
  attachments: { ...FLAG, description: 'Answer multipart/mixed with the attachments the LRS holds after the statements.' },
  ascending: { ...FLAG, description: 'Oldest stored first.' },
  more: { schema: p.string, description: 'The continuation token of a previous page\'s `more` URL; alone, or with exactly the parameters of the query it continues.' }
}
const PUT = { statementId: { schema: p.uuid, required: true, description: 'The statement\'s id.' } }
const POST = {}
const SINGLE_ALLOWED = new Set(['statementId', 'voidedStatementId', 'format', 'attachments'])

const instant = (value) => new Date(Date.parse(toUtcTimestamp(value)))

// GET's checked parameters (route.js), `more` taken out, turned into a
// normalized description: { single: { id, voided } } or { query }, with
// format and attachments.
function statementQuery (validator) {
  return function parseGet (params, { xapiVersion, maxLimit }) {
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
}

module.exports = { statementQuery, GET, PUT, POST }
