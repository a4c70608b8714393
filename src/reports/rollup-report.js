'use strict'

// Reports answered from what the storage counts per hour without reading a
// statement (storage.reportCounts: statements per hour of their timestamp
// and verb, learners per hour, a course's funnel per hour, object activity
// and learner; SQLite's rollups kept by its writer, MongoDB's aggregation
// framework): statements and distinct learners grouped by verb and a time
// bucket, filtered on verb and a timestamp range of whole hours; a
// course's completion funnel on such a range. The numbers are those
// run-report.js counts from the statements (the tests compare them);
// anything else (an activity: its statements are found by the index), or
// a time zone whose hours straddle its buckets (UTC+05:30 days), is read
// from the statements.

const { errors } = require('../errors')
const { bucketOf, BUCKETS } = require('./time-buckets')
const { orderedRows } = require('./group-report')
const { funnelRows } = require('./report-shapes')

const HOUR_MS = 3600000
const FILTERS = new Set(['verb', 'from', 'to'])
const CATEGORIES = new Set(['verb'])
const FUNNEL_FILTERS = new Set(['grouping', 'from', 'to'])
// hours read at once: a week of a busy store is some tens of thousands of
// rows, milliseconds, and the worker answers other requests between
const CHUNK_HOURS = 168

// Whether the rollups hold what `report` asks (run-report.js's report;
// `authorityKey`: only a credential's own statements, which they do not know).
function rollupAnswers (report, { authorityKey }) {
  if (authorityKey || report.timeField !== 'timestamp') return false
  const f = report.filter
  if (['from', 'to'].some((k) => f[k] && Date.parse(f[k]) % HOUR_MS !== 0)) return false
  // a course's completion funnel
  if (report.shape === 'completionFunnel') return Boolean(f.grouping) && Object.keys(f).every((k) => FUNNEL_FILTERS.has(k))
  if (report.shape) return false
  if (!Object.keys(f).every((k) => FILTERS.has(k))) return false
  const categories = report.groupBy.filter((d) => !BUCKETS.includes(d))
  if (!categories.every((d) => CATEGORIES.has(d))) return false
  if (!report.measures.every((m) => m === 'statements' || m === 'learners')) return false
  // learners are rolled up per hour, not per verb
  return !report.measures.includes('learners') || (!categories.length && !f.verb)
}

// The hours fromHour..toHour (excluded) as the report's buckets, in order:
// [{ name, fromHour, toHour }]; null when an hour falls in two buckets.
function bucketRanges (fromHour, toHour, bucket, timeZone) {
  if (!bucket) return [{ name: null, fromHour, toHour }]
  const ranges = []
  for (let h = fromHour; h < toHour; h++) {
    const name = bucketOf(h * HOUR_MS, bucket, timeZone)
    if (bucketOf(h * HOUR_MS + HOUR_MS - 1, bucket, timeZone) !== name) return null
    const last = ranges[ranges.length - 1]
    if (last && last.name === name && last.toHour === h) last.toHour = h + 1
    else ranges.push({ name, fromHour: h, toHour: h + 1 })
  }
  return ranges
}

// The hours a report asks, within those holding statements: [fromHour, toHour).
async function hoursOf (report, { counts, store }) {
  const f = report.filter
  const span = await counts.span({ store })
  return {
    fromHour: Math.max(f.from ? Date.parse(f.from) / HOUR_MS : -Infinity, span ? span.firstHour : 0),
    toHour: Math.min(f.to ? Date.parse(f.to) / HOUR_MS : Infinity, span ? span.lastHour + 1 : 0)
  }
}

// Reads `read(fromHour, toHour)` a chunk of hours at a time, other requests
// served between; past the deadline, ReportTimeout.
async function inChunks (fromHour, toHour, deadline, read) {
  for (let from = fromHour; from < toHour; from += CHUNK_HOURS) {
    if (Date.now() > deadline) throw errors.ReportTimeout()
    await read(from, Math.min(toHour, from + CHUNK_HOURS))
    await new Promise((resolve) => setImmediate(resolve))
  }
}

// The answer as run-report.js gives it.
function answerOf (report, { columns, all, counted, source, started }) {
  return {
    columns,
    rows: all.slice(0, report.maxGroups),
    groups: all.length,
    truncated: all.length > report.maxGroups,
    statementsRead: 0,
    statementsCounted: counted,
    source,
    tookMs: Date.now() - started
  }
}

// A course's completion funnel: per object activity, its learners of each step.
async function funnelFromCounts (report, { counts, store, deadline }) {
  const started = Date.now()
  const { fromHour, toHour } = await hoursOf(report, { counts, store })
  const groups = new Map() // activity -> { launched, completed, passed } (learner sets)
  let counted = 0
  await inChunks(fromHour, toHour, deadline, async (from, to) => {
    for (const row of await counts.funnel({ store, grouping: report.filter.grouping, fromHour: from, toHour: to })) {
      let g = groups.get(row.activity)
      if (!g) groups.set(row.activity, (g = { launched: new Set(), completed: new Set(), passed: new Set() }))
      if (row.launched > 0) g.launched.add(row.learner)
      if (row.completed > 0) g.completed.add(row.learner)
      if (row.passed > 0) g.passed.add(row.learner)
      counted += row.n
    }
  })
  return answerOf(report, { columns: ['activity', 'launched', 'completed', 'passed'], all: funnelRows(groups), counted, source: counts.source, started })
}

// The answer, as run-report.js gives it, or null when the counts cannot
// give it exactly (then the statements are read).
async function runFromRollups (report, { counts, store, deadline }) {
  if (report.shape === 'completionFunnel') return funnelFromCounts(report, { counts, store, deadline })
  const started = Date.now()
  const f = report.filter
  const { fromHour, toHour } = await hoursOf(report, { counts, store })
  const bucket = report.groupBy.find((d) => BUCKETS.includes(d))
  const categories = report.groupBy.filter((d) => !BUCKETS.includes(d))
  const ranges = fromHour < toHour ? bucketRanges(fromHour, toHour, bucket, report.timeZone) : []
  if (!ranges) return null
  const learnersAsked = report.measures.includes('learners')
  const groups = new Map() // key -> { values by dimension, n, learners }
  for (const range of ranges) {
    await inChunks(range.fromHour, range.toHour, deadline, async (from, to) => {
      const rows = await counts.statements({ store, fromHour: from, toHour: to, verb: f.verb, by: categories })
      for (const row of rows) {
        const key = JSON.stringify([range.name, ...categories.map((d) => row[d])])
        let g = groups.get(key)
        if (!g) groups.set(key, (g = { values: { ...row, [bucket]: range.name }, n: 0, learners: learnersAsked ? new Set() : null }))
        g.n += row.n
      }
      if (learnersAsked && rows.length) {
        const g = groups.get(JSON.stringify([range.name]))
        for (const learner of await counts.learners({ store, fromHour: from, toHour: to })) g.learners.add(learner)
      }
    })
  }
  const list = [...groups.values()].map((g) => ({
    values: report.groupBy.map((d) => g.values[d]),
    measured: report.measures.map((m) => m === 'statements' ? g.n : g.learners.size)
  }))
  const counted = [...groups.values()].reduce((sum, g) => sum + g.n, 0)
  return answerOf(report, { columns: [...report.groupBy, ...report.measures], all: orderedRows(list, report), counted, source: counts.source, started })
}

module.exports = { rollupAnswers, runFromRollups }
