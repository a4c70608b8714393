'use strict'

// What a report reads of one statement: the value of each dimension (a
// list: a statement has several context activities, and counts in the group
// of each), whether it passes the filters the store's query could not
// apply, and its score, duration and time. A learner is the actor's
// identifier as GET /statements' agent filter matches it (agent-keys.js),
// so "distinct learners" counts what an admin would query one by one.

const { agentKey } = require('../resources/agents/agent-keys')
const { bucketOf } = require('./time-buckets')
const { durationSeconds } = require('./iso-duration')

const NONE = []
const isActivity = (object) => object && (object.objectType === undefined || object.objectType === 'Activity')
const contextActivities = (s, kind) => {
  const list = s.context && s.context.contextActivities && s.context.contextActivities[kind]
  if (!list) return NONE
  return (Array.isArray(list) ? list : [list]).map((a) => a.id)
}
const flag = (value) => typeof value === 'boolean' ? value : null

// The statement's time on `timeField` (ms).
function timeOf (s, timeField) {
  return Date.parse(timeField === 'stored' ? s.stored : (s.timestamp || s.stored))
}

// The score the report reads, or null.
function scoreOf (s, which) {
  const score = s.result && s.result.score
  const value = score ? score[which] : undefined
  return typeof value === 'number' ? value : null
}

function durationOf (s) {
  return s.result && s.result.duration !== undefined ? durationSeconds(s.result.duration) : null
}

// dimension -> (statement, report) -> [values]
const DIMENSION_VALUES = {
  verb: (s) => [s.verb.id],
  activity: (s) => isActivity(s.object) ? [s.object.id] : [null],
  activityType: (s) => [isActivity(s.object) && s.object.definition && s.object.definition.type ? s.object.definition.type : null],
  learner: (s) => [agentKey(s.actor)],
  registration: (s) => [s.context && s.context.registration ? s.context.registration.toLowerCase() : null],
  parent: (s) => nonEmpty(contextActivities(s, 'parent')),
  grouping: (s) => nonEmpty(contextActivities(s, 'grouping')),
  category: (s) => nonEmpty(contextActivities(s, 'category')),
  platform: (s) => [s.context && s.context.platform !== undefined ? s.context.platform : null],
  success: (s) => [flag(s.result && s.result.success)],
  completion: (s) => [flag(s.result && s.result.completion)],
  hour: (s, r) => [bucketOf(timeOf(s, r.timeField), 'hour', r.timeZone)],
  day: (s, r) => [bucketOf(timeOf(s, r.timeField), 'day', r.timeZone)],
  week: (s, r) => [bucketOf(timeOf(s, r.timeField), 'week', r.timeZone)],
  month: (s, r) => [bucketOf(timeOf(s, r.timeField), 'month', r.timeZone)]
}
const nonEmpty = (list) => list.length ? [...new Set(list)] : [null]

// The filters of `report` a store's query does not apply, as one test of a
// parsed statement (null: none).
function residualFilter (report) {
  const f = report.filter
  const tests = []
  if (f.from) { const from = Date.parse(f.from); tests.push((s) => timeOf(s, report.timeField) >= from) }
  if (f.to) { const to = Date.parse(f.to); tests.push((s) => timeOf(s, report.timeField) < to) }
  if (f.success !== undefined) tests.push((s) => flag(s.result && s.result.success) === f.success)
  if (f.completion !== undefined) tests.push((s) => flag(s.result && s.result.completion) === f.completion)
  if (f.scoreMin !== undefined) tests.push((s) => { const v = scoreOf(s, report.score); return v !== null && v >= f.scoreMin })
  if (f.scoreMax !== undefined) tests.push((s) => { const v = scoreOf(s, report.score); return v !== null && v <= f.scoreMax })
  if (f.activityType) tests.push((s) => DIMENSION_VALUES.activityType(s)[0] === f.activityType)
  for (const kind of ['parent', 'grouping', 'category']) {
    if (f[kind]) tests.push((s) => contextActivities(s, kind).includes(f[kind]))
  }
  if (f.platform) tests.push((s) => s.context && s.context.platform === f.platform)
  return tests.length ? (s) => tests.every((test) => test(s)) : null
}

module.exports = { DIMENSION_VALUES, residualFilter, timeOf, scoreOf, durationOf }
