'use strict'

// DELETE /admin/agents?agent=<JSON Agent>: agent erasure (erase-agent.js).
// The audit line names the agent by a digest only.

const { parameter: p } = require('../validation/query-parameters')
const { json, schema, response } = require('../http/openapi-parts')
const { eraseAgent } = require('./erase-agent')

function agentsRoutes ({ storage, validator }) {
  return [{
    method: 'delete',
    path: '/agents',
    operationId: 'eraseAgent',
    summary: 'Erase an agent (right to be forgotten)',
    description: 'Removes every statement the agent appears in other than as authority, its State and Agent Profile documents, ' +
      'attachments no other statement uses and the statements\' forwarding entries. Idempotent. The audit log names the agent by its digest only.',
    query: { agent: { schema: p.agent, required: true, description: 'The Agent to erase.' } },
    responses: { 200: response('What was removed.', { content: json(schema('ErasureResult')) }) },
    async handler (req, res, { query }) {
      const agent = validator.parseActorParam(query.agent, '2.0.0')
      const result = await eraseAgent(storage, agent)
      req.log.info({ audit: 'agent-erased', agentDigest: result.agentDigest, removed: result.removed }, 'agent erased')
      res.json(result)
    }
  }]
}

module.exports = { agentsRoutes }
