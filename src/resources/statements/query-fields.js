'use strict'

// The values each query parameter filters on, computed once when a statement
// is stored (Communication 2.1.3): `agent` looks at actor and object,
// `related_agents` also at authority, instructor, team, context agents/groups
// and the same inside a SubStatement; `activity` at the object,
// `related_activities` also at context activities and the SubStatement.

const { actorKeys } = require('../agents/agent-keys')
const { forEachContextActivity } = require('../../validation/context-activities')

function isActor (object) {
  return object && (object.objectType === 'Agent' || object.objectType === 'Group')
}

function isActivity (object) {
  return object && (object.objectType === undefined || object.objectType === 'Activity')
}

function addContextActivities (context, into) {
  if (context) forEachContextActivity(context.contextActivities, (a) => into.add(a.id))
}

function addRelatedAgents (s, into) {
  actorKeys(s.actor, into)
  if (isActor(s.object)) actorKeys(s.object, into)
  const c = s.context
  if (c) {
    actorKeys(c.instructor, into)
    actorKeys(c.team, into)
    if (c.contextAgents) for (const a of c.contextAgents) actorKeys(a.agent, into)
    if (c.contextGroups) for (const g of c.contextGroups) actorKeys(g.group, into)
  }
}

// `authority` is the one the LRS sets, which replaces any the client sent.
function queryFields (statement, authority) {
  const agents = actorKeys(statement.actor, new Set())
  if (isActor(statement.object)) actorKeys(statement.object, agents)

  const relAgents = new Set(agents)
  addRelatedAgents(statement, relAgents)
  actorKeys(authority, relAgents)

  const activities = new Set()
  if (isActivity(statement.object)) activities.add(statement.object.id)
  const relActivities = new Set(activities)
  addContextActivities(statement.context, relActivities)

  const sub = statement.object.objectType === 'SubStatement' ? statement.object : null
  if (sub) {
    addRelatedAgents(sub, relAgents)
    if (isActivity(sub.object)) relActivities.add(sub.object.id)
    addContextActivities(sub.context, relActivities)
  }

  return {
    verb: statement.verb.id,
    agents: [...agents],
    relAgents: [...relAgents],
    activities: [...activities],
    relActivities: [...relActivities],
    registration: statement.context && statement.context.registration ? statement.context.registration.toLowerCase() : null
  }
}

module.exports = { queryFields }
