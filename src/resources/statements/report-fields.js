'use strict'

// What reports (src/reports/) count a statement by, worked out once when
// it is stored so that the storage can keep counts of it (the SQLite
// writer's rollups, MongoDB's report fields) with the same meaning the
// reports give it when they read statements:
//   learner      the actor's identifier as GET /statements' agent filter
//                matches it (agent-keys.js); null for an anonymous Group
//   timestampMs  its timestamp (null: the LRS sets it to stored)
//   groupings    its contextActivities.grouping ids (a course, typically)
//   launched, completes, passes: the completion funnel's three steps
//                (report-shapes.js): verb launched or initialized; verb
//                completed or result.completion; verb passed or result.success

const { agentKey } = require('../agents/agent-keys')

const ADL = 'http://adlnet.gov/expapi/verbs/'
const LAUNCHED = new Set([ADL + 'launched', ADL + 'initialized'])
const COMPLETED = ADL + 'completed'
const PASSED = ADL + 'passed'

const launches = (s) => LAUNCHED.has(s.verb.id)
const completes = (s) => s.verb.id === COMPLETED || (s.result && s.result.completion === true) === true
const passes = (s) => s.verb.id === PASSED || (s.result && s.result.success === true) === true

function groupingsOf (s) {
  const list = s.context && s.context.contextActivities && s.context.contextActivities.grouping
  if (!list) return []
  return [...new Set((Array.isArray(list) ? list : [list]).map((a) => a.id))]
}

function reportFields (s) {
  return {
    learner: agentKey(s.actor),
    timestampMs: s.timestamp ? Date.parse(s.timestamp) : null,
    groupings: groupingsOf(s),
    launched: launches(s),
    completes: completes(s),
    passes: passes(s)
  }
}

module.exports = { reportFields, launches, completes, passes }
