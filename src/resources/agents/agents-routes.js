'use strict'

// GET /xapi/agents?agent= (Communication 2.4): the Person object for an
// Agent. This LRS keeps no identity links between Agents, so the Person
// holds the identifiers of the Agent asked about.

const express = require('express')
const { errors } = require('../../errors')
const { requireScope } = require('../../auth/basic-auth')
const { parameter: p } = require('../../validation/query-parameters')

function agentsRoutes ({ credentials, validator }) {
  const router = express.Router({ caseSensitive: true })
  const parameters = validator.queryParameters({ properties: { agent: p.string }, required: ['agent'] })
  router.get('/agents', requireScope(credentials, 'define:read'), (req, res) => {
    const agent = validator.parseActorParam(parameters(req.query).agent, req.xapiVersion)
    if (agent.objectType === 'Group') throw errors.InvalidParameter('agent must be an Agent, not a Group')
    const person = { objectType: 'Person' }
    for (const k of ['name', 'mbox', 'mbox_sha1sum', 'openid', 'account']) if (agent[k] !== undefined) person[k] = [agent[k]]
    res.type('application/json; charset=utf-8').end(JSON.stringify(person))
  })
  router.all('/agents', (req, res, next) => next(errors.MethodNotAllowed(`${req.method} is not supported on /agents`)))
  return router
}

module.exports = { agentsRoutes }
