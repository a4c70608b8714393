'use strict'

// DELETE /admin/agents?agent=<JSON Agent>: agent erasure (erase-agent.js);
// GET the same: what it would remove, removing nothing (the console's
// preview before a person confirms, like `lrs erase-agent --dry-run`).
// The audit line names the agent by a digest only.

const { parameter: p } = require('../validation/query-parameters')
const { json, schema, response } = require('../http/openapi-parts')
const { eraseAgent, previewErasure } = require('./erase-agent')

const AGENT = { agent: { schema: p.agent, required: true, description: 'The Agent to erase.' } }

function agentsRoutes ({ storage, validator }) {
  return [{
    method: 'get',
    path: '/agents',
    operationId: 'previewAgentErasure',
    summary: 'What erasing an agent would remove (removes nothing)',
    description: 'The statements the erasure would find and the agent\'s State and Agent Profile documents. ' +
      'Attachments and forwarding entries are counted by the erasure itself.',
    query: AGENT,
    responses: { 200: response('What the erasure would remove.', { content: json(schema('ErasurePreview')) }) },
    async handler (req, res, { query }) {
      res.json(await previewErasure(storage, validator.parseActorParam(query.agent, '2.0.0'), { store: req.credential.store }))
    }
  }, {
    method: 'delete',
    path: '/agents',
    operationId: 'eraseAgent',
    summary: 'Erase an agent (right to be forgotten)',
    description: 'Removes every statement the agent appears in other than as authority, its State and Agent Profile documents, ' +
      'attachments no other statement uses and the statements\' forwarding entries. Idempotent. The audit log names the agent by its digest only.',
    query: AGENT,
    responses: { 200: response('What was removed.', { content: json(schema('ErasureResult')) }) },
    async handler (req, res, { query }) {
      const agent = validator.parseActorParam(query.agent, '2.0.0')
      const result = await eraseAgent(storage, agent, { store: req.credential.store })
      req.log.info({ audit: 'agent-erased', agentDigest: result.agentDigest, removed: result.removed }, 'agent erased')
      res.json(result)
    }
  }]
}

module.exports = { agentsRoutes }
