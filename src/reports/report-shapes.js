'use strict'

// The two ready-made reports, as accumulators like a grouped report's
// (group-report.js): what an admin is asked for most, without composing
// dimensions and measures.
//   completionFunnel  per object activity: learners who launched or
//                     initialized it, who completed it (verb completed, or
//                     result.completion true), who passed it (verb passed,
//                     or result.success true)
//   learnerProgress   per learner (or registration): statements, the last
//                     verb and its timestamp, completed and passed yes/no,
//                     best score, time spent (sum of result.duration, s)

const { agentKey } = require('../resources/agents/agent-keys')
const { scoreOf, durationOf, timeOf } = require('./statement-values')

const { launches, completes, passes } = require('../resources/statements/report-fields')
const round = (x) => Math.round(x * 1e9) / 1e9

function completionFunnel () {
  const groups = new Map() // activity -> { launched, completed, passed } (learner sets)
  return {
    columns: ['activity', 'launched', 'completed', 'passed'],
    size: () => groups.size,
    has: (s) => groups.has(activityOf(s)),
    add (s) {
      const activity = activityOf(s)
      let g = groups.get(activity)
      if (!g) groups.set(activity, (g = { launched: new Set(), completed: new Set(), passed: new Set() }))
      const learner = agentKey(s.actor)
      if (launches(s)) g.launched.add(learner)
      if (completes(s)) g.completed.add(learner)
      if (passes(s)) g.passed.add(learner)
    },
    rows: () => funnelRows(groups)
  }
}

// The funnel's rows from its groups (activity -> learner sets), most
// launched first (rollup-report.js answers in the same order).
function funnelRows (groups) {
  return [...groups].map(([activity, g]) => [activity, g.launched.size, g.completed.size, g.passed.size])
    .sort((a, b) => (b[1] - a[1]) || (b[2] - a[2]) || String(a[0]).localeCompare(String(b[0])))
}
const activityOf = (s) => (s.object.objectType === undefined || s.object.objectType === 'Activity') ? s.object.id : null

function learnerProgress (report) {
  const per = report.per
  const keyOf = per === 'registration' ? (s) => (s.context && s.context.registration ? s.context.registration.toLowerCase() : null) : (s) => agentKey(s.actor)
  const groups = new Map()
  return {
    columns: [per, 'statements', 'lastVerb', 'lastTimestamp', 'completed', 'passed', 'bestScore', 'timeSpent'],
    size: () => groups.size,
    has: (s) => groups.has(keyOf(s)),
    add (s) {
      const key = keyOf(s)
      let g = groups.get(key)
      if (!g) groups.set(key, (g = { statements: 0, last: null, lastAt: null, lastId: null, completed: false, passed: false, best: null, spent: 0 }))
      g.statements++
      const at = timeOf(s, 'timestamp')
      // the latest by timestamp; one instant twice: the greater id, so both engines agree
      if (g.lastAt === null || at > g.lastAt || (at === g.lastAt && s.id > g.lastId)) Object.assign(g, { last: s.verb.id, lastAt: at, lastId: s.id })
      if (completes(s)) g.completed = true
      if (passes(s)) g.passed = true
      const score = scoreOf(s, report.score)
      if (score !== null && (g.best === null || score > g.best)) g.best = score
      const d = durationOf(s)
      if (d !== null) g.spent += d
    },
    rows: () => [...groups].map(([key, g]) => [key, g.statements, g.last, new Date(g.lastAt).toISOString(), g.completed, g.passed, g.best, round(g.spent)])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])))
  }
}

const SHAPE_ACCUMULATORS = { completionFunnel, learnerProgress }

module.exports = { SHAPE_ACCUMULATORS, funnelRows }
