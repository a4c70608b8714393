'use strict'

// /xapi/agents/profile (Communication 2.6): keyed by agent and profileId.
const { documentRoutes } = require('../documents/document-routes')

const AGENT_PROFILE = { resource: 'agentProfile', name: 'AgentProfile', title: 'Agent Profile', path: '/agents/profile', scope: 'profile', docParam: 'profileId', agent: true }

module.exports = { agentProfileRoutes: (deps) => documentRoutes(AGENT_PROFILE, deps) }
