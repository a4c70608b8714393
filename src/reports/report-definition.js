'use strict'

// A report as an admin declares it (POST /admin/reports/run, saved
// reports): which statements (`filter`), grouped how (`groupBy`, up to two
// dimensions), measured how (`measures`), or one of the ready-made shapes.
// The schema (ajv, and the OpenAPI document) takes the shape; `toReport`
// checks what a schema cannot (an agent, IRIs, a time zone) and gives the
// report as run-report.js reads it. Nothing a client wrote reaches an
// engine but through GET /statements' query (src/storage/statement-query.js).

const { errors } = require('../errors')
const { agentKey } = require('../resources/agents/agent-keys')
const { knownTimeZone, BUCKETS } = require('./time-buckets')
const { isValidTimestamp, toUtcTimestamp } = require('../validation/formats')

const CATEGORIES = ['verb', 'activity', 'activityType', 'learner', 'registration', 'parent', 'grouping', 'category', 'platform', 'success', 'completion']
const DIMENSIONS = [...CATEGORIES, ...BUCKETS]
const STATS = ['count', 'mean', 'min', 'max', 'p50', 'p90', 'p95', 'p99']
const MEASURES = ['statements', 'learners', 'registrations', 'firstTimestamp', 'lastTimestamp',
  ...STATS.map((s) => `score.${s}`), ...['sum', ...STATS.slice(1)].map((s) => `duration.${s}`)]
const SHAPES = ['completionFunnel', 'learnerProgress']
const MAX_GROUPS = 10000
const DEFAULT_GROUPS = 1000

const IRI = { type: 'string', minLength: 1, maxLength: 2048 }
const INSTANT = { type: 'string', minLength: 1, maxLength: 64 } // an ISO 8601 timestamp, checked by toReport

const FILTER_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'Which statements count (voided ones never do). GET /statements\' filters, and more.',
  properties: {
    agent: { type: 'object', description: 'An Agent or Group, as GET /statements `agent`: its statements as actor or object (`related_agents`: anywhere).' },
    verb: { ...IRI, description: 'A verb id.' },
    activity: { ...IRI, description: 'An activity id: statements whose object it is (`related_activities`: anywhere, context activities included).' },
    registration: { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' },
    related_agents: { type: 'boolean' },
    related_activities: { type: 'boolean' },
    since: { ...INSTANT, description: 'Stored after this instant.' },
    until: { ...INSTANT, description: 'Stored at or before this instant.' },
    from: { ...INSTANT, description: 'On the report\'s timeField (timestamp by default): at or after this instant.' },
    to: { ...INSTANT, description: 'On the report\'s timeField: before this instant.' },
    success: { type: 'boolean', description: 'result.success.' },
    completion: { type: 'boolean', description: 'result.completion.' },
    scoreMin: { type: 'number', description: 'The report\'s score (scaled or raw) at least this.' },
    scoreMax: { type: 'number', description: 'The report\'s score at most this.' },
    activityType: { ...IRI, description: 'The object\'s definition.type.' },
    parent: { ...IRI, description: 'A context activity of the statement\'s contextActivities.parent.' },
    grouping: { ...IRI, description: 'A context activity of contextActivities.grouping (a course, typically).' },
    category: { ...IRI, description: 'A context activity of contextActivities.category.' },
    platform: { type: 'string', minLength: 1, maxLength: 256, description: 'context.platform.' }
  }
}

const REPORT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'A report: statements picked by `filter`, grouped by `groupBy` and measured by `measures`, or one of the ready-made shapes.',
  properties: {
    filter: FILTER_SCHEMA,
    groupBy: { type: 'array', maxItems: 2, uniqueItems: true, items: { enum: DIMENSIONS }, description: 'Up to two dimensions. A statement with several values of one (context activities) counts in each. hour, day, week (from Monday), month: buckets of timeField in timeZone.' },
    measures: { type: 'array', minItems: 1, maxItems: 20, uniqueItems: true, items: { enum: MEASURES }, description: 'statements; learners and registrations (distinct, exact); first and last timestamp; score.* (the report\'s score: scaled or raw); duration.* (result.duration, seconds). pNN: the NN-th percentile (nearest rank).' },
    shape: { enum: SHAPES, description: 'completionFunnel: per object activity, the learners who launched or initialized it, who completed it (verb completed or result.completion), who passed it (verb passed or result.success). learnerProgress: per learner (or registration, `per`), statements, last verb and when, completed and passed yes/no, best score, time spent (sum of result.duration).' },
    per: { enum: ['learner', 'registration'], description: 'learnerProgress: one row per learner (default) or per registration.' },
    score: { enum: ['scaled', 'raw'], description: 'Which score score.* and scoreMin/scoreMax read (default scaled).' },
    timeField: { enum: ['timestamp', 'stored'], description: 'What from/to and the time buckets read (default timestamp).' },
    timeZone: { type: 'string', minLength: 1, maxLength: 64, description: 'IANA time zone of the time buckets (default UTC).' },
    maxGroups: { type: 'integer', minimum: 1, maximum: MAX_GROUPS, description: `Most rows in the answer (default ${DEFAULT_GROUPS}); past it the answer says truncated.` }
  }
}

// The report as run-report.js runs it, or a 400 naming the field at fault.
// `validator`: the statement validator (an agent is checked as GET
// /statements checks one).
function toReport (body, { validator }) {
  const filter = { ...(body.filter || {}) }
  if (filter.agent) filter.agent = agentKey(validator.parseActorParam(JSON.stringify(filter.agent), '2.0.0', 'filter.agent'))
  for (const field of ['verb', 'activity', 'activityType', 'parent', 'grouping', 'category']) {
    if (filter[field] !== undefined && !validator.isIri(filter[field])) throw errors.BadRequest(`filter.${field} must be an IRI`)
  }
  if (filter.related_agents && !filter.agent) throw errors.BadRequest('filter.related_agents widens filter.agent, which is missing')
  if (filter.related_activities && !filter.activity) throw errors.BadRequest('filter.related_activities widens filter.activity, which is missing')
  if (filter.registration) filter.registration = filter.registration.toLowerCase()
  for (const field of ['since', 'until', 'from', 'to']) {
    if (filter[field] === undefined) continue
    if (!isValidTimestamp(filter[field])) throw errors.BadRequest(`filter.${field} must be an ISO 8601 timestamp`)
    filter[field] = toUtcTimestamp(filter[field])
  }
  for (const [a, b] of [['since', 'until'], ['from', 'to']]) {
    if (filter[a] && filter[b] && Date.parse(filter[a]) >= Date.parse(filter[b])) throw errors.BadRequest(`filter.${a} must be before filter.${b}`)
  }
  if (filter.scoreMin !== undefined && filter.scoreMax !== undefined && filter.scoreMin > filter.scoreMax) throw errors.BadRequest('filter.scoreMin must not exceed filter.scoreMax')
  const timeZone = body.timeZone || 'UTC'
  if (!knownTimeZone(timeZone)) throw errors.BadRequest(`timeZone "${timeZone}" is not a time zone this server knows (an IANA name such as Europe/Paris)`)
  if (body.shape && (body.groupBy || body.measures)) throw errors.BadRequest(`shape ${body.shape} has its own groups and measures: leave groupBy and measures out`)
  if (!body.shape && !body.measures) throw errors.BadRequest('measures is missing: what to count (statements, learners, ...)')
  if (body.per && body.shape !== 'learnerProgress') throw errors.BadRequest('per is for shape learnerProgress')
  return {
    filter,
    groupBy: body.groupBy || [],
    measures: body.measures || [],
    shape: body.shape || null,
    per: body.per || 'learner',
    score: body.score || 'scaled',
    timeField: body.timeField || 'timestamp',
    timeZone,
    maxGroups: body.maxGroups || DEFAULT_GROUPS
  }
}

module.exports = { REPORT_SCHEMA, toReport, DIMENSIONS, MEASURES }
