'use strict'

// Which statements a forwarder gets: the filters of GET /statements
// (Communication 2.1.3), decided when a statement is stored, from the
// values the write path computed for the statement's queries anyway
// (resources/statements/query-fields.js): no parse, no read back.
//   agent          the actor or object (anywhere with related_agents)
//   verb           the verb's id
//   activity       the object (anywhere with related_activities)
//   registration   context.registration
//   voiding        false: voiding statements are not forwarded
// A change applies to statements stored after it.

const { agentKey } = require('../resources/agents/agent-keys')

const FILTER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'Which statements it gets, as GET /statements filters them (all of them when empty). Applies to statements stored after it is set.',
  properties: {
    agent: { type: 'object', description: 'An Agent or Group (identified as in GET /statements `agent`): statements whose actor or object it is.' },
    verb: { type: 'string', minLength: 1, maxLength: 2048, description: 'A verb id (IRI).' },
    activity: { type: 'string', minLength: 1, maxLength: 2048, description: 'An activity id (IRI): statements whose object it is.' },
    registration: { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', description: 'A registration (UUID).' },
    related_agents: { type: 'boolean', description: 'Widen `agent` to authority, instructor, team, context agents and groups, and SubStatements.' },
    related_activities: { type: 'boolean', description: 'Widen `activity` to context activities and SubStatements.' },
    voiding: { type: 'boolean', description: 'false: voiding statements are not forwarded (default true).' }
  }
}

// `filter` as stored (its agent already checked as an actor) -> a test of a
// statement's record; null when every statement matches.
function compileFilter (filter = {}) {
  const tests = []
  if (filter.agent) {
    const key = agentKey(filter.agent)
    const field = filter.related_agents ? 'relAgents' : 'agents'
    tests.push((r) => r[field].includes(key))
  }
  if (filter.verb) tests.push((r) => r.verb === filter.verb)
  if (filter.activity) {
    const field = filter.related_activities ? 'relActivities' : 'activities'
    tests.push((r) => r[field].includes(filter.activity))
  }
  if (filter.registration) {
    const registration = filter.registration.toLowerCase()
    tests.push((r) => r.registration === registration)
  }
  if (filter.voiding === false) tests.push((r) => !r.voiding)
  if (!tests.length) return null
  return (record) => tests.every((test) => test(record))
}

module.exports = { compileFilter, FILTER_SCHEMA }
