'use strict'

// DELETE /admin/agents?agent=<JSON Agent>: agent erasure (erase-agent.js).
// The audit line names the agent by a digest only.

const express = require('express')
const { parameter: p } = require('../validation/query-parameters')
const { eraseAgent } = require('./erase-agent')

function agentsRoutes ({ storage, validator }) {
  const router = express.Router({ caseSensitive: true })
  const parameters = validator.queryParameters({ properties: { agent: p.string }, required: ['agent'] })

  router.delete('/agents', async (req, res) => {
    const agent = validator.parseActorParam(parameters(req.query).agent, '2.0.0')
    const result = await eraseAgent(storage, agent)
    req.log.info({ audit: 'agent-erased', agentDigest: result.agentDigest, removed: result.removed }, 'agent erased')
    res.json(result)
  })

  return router
}

module.exports = { agentsRoutes }
