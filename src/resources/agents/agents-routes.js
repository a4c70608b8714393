'use strict'

// GET /xapi/agents?agent= (Communication 2.4): the Person object for an
// Agent. This LRS keeps no identity links between Agents, so the Person
// holds the identifiers of the Agent asked about.

const { errors } = require('../../errors')
const { parameter: p } = require('../../validation/query-parameters')
const { json, schema, response } = require('../../http/openapi-parts')

function agentsRoutes ({ validator }) {
  return [{
    method: 'get',
    path: '/agents',
    tag: 'xAPI Agents and Activities',
    operationId: 'getPerson',
    summary: 'The Person for an Agent',
    description: 'This LRS keeps no links between Agents: the Person holds the identifiers of the Agent asked about. A Group is 400.',
    scope: 'define:read',
    query: { agent: { schema: p.agent, required: true, description: 'The Agent.' } },
    responses: { 200: response('The Person for an Agent', { content: json(schema('Person')) }) },
    handler (req, res, { query }) {
      const agent = validator.parseActorParam(query.agent, req.xapiVersion)
      if (agent.objectType === 'Group') throw errors.InvalidParameter('agent must be an Agent, not a Group')
      const person = { objectType: 'Person' }
      for (const k of ['name', 'mbox', 'mbox_sha1sum', 'openid', 'account']) if (agent[k] !== undefined) person[k] = [agent[k]]
      res.type('application/json; charset=utf-8').end(JSON.stringify(person))
    }
  }]
}

module.exports = { agentsRoutes }
