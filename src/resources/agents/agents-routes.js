'use strict'

// GET /xapi/agents?agent= (Communication 2.4): the Person object for an
// Agent. This LRS keeps no identity links between Agents, so the Person
// holds the identifiers of the Agent asked about.

const express = require('express')
const { errors } = require('../../errors')
const { requireScope } = require('../../auth/basic-auth')

function agentsRoutes ({ credentials, validator }) {
  const router = express.Router({ caseSensitive: true })
  router.get('/agents', requireScope(credentials, 'define:read'), (req, res) => {
    for (const name of Object.keys(req.query)) if (name !== 'agent') throw errors.InvalidParameter(`unknown parameter "${name}"`)
    if (typeof req.query.agent !== 'string') throw errors.InvalidParameter('agent is required')
    const agent = validator.parseActorParam(req.query.agent, req.xapiVersion)
    if (agent.objectType === 'Group') throw errors.InvalidParameter('agent must be an Agent, not a Group')
    const person = { objectType: 'Person' }
    for (const k of ['name', 'mbox', 'mbox_sha1sum', 'openid', 'account']) if (agent[k] !== undefined) person[k] = [agent[k]]
    res.type('application/json; charset=utf-8').end(JSON.stringify(person))
  })
  router.all('/agents', (req, res, next) => next(errors.MethodNotAllowed(`${req.method} is not supported on /agents`)))
  return router
}

module.exports = { agentsRoutes }
