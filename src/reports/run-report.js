'use strict'

// Runs a report (report-definition.js) over a store's statements: the
// filters GET /statements has are the store's query (its indexes, its
// store, what the credential may read, voided statements left out), page
// after page in stored order; the others are tested on each statement
// (statement-values.js) and what passes is counted by the report's
// accumulator (group-report.js, report-shapes.js). Within
// LRS_REPORT_TIMEOUT_MS, or ReportTimeout naming what would narrow it.
//
// The same code counts on both engines, so a report gives the same numbers
// on each (the tests compare them). A report of what the storage counts
// per hour (rollup-report.js: SQLite's rollups, MongoDB's aggregation) is
// answered from those counts, with the same numbers.

const { errors } = require('../errors')
const { statementQuery } = require('../storage/statement-query')
const { storageQueryFields } = require('../stores/store-keys')
const { withStored } = require('../resources/statements/statement-record')
const { residualFilter } = require('./statement-values')
const { groupReport } = require('./group-report')
const { SHAPE_ACCUMULATORS } = require('./report-shapes')
const { rollupAnswers, runFromRollups } = require('./rollup-report')

const PAGE = 1000
const HOUR_MS = 3600000
// groups a report may hold while it runs, whatever maxGroups it answers
const MAX_TRACKED_GROUPS = 100000

// GET /statements' part of the filter. A context activity the store's
// index knows as a related activity: asked as one, then tested exactly.
function storeQuery (filter) {
  const q = {
    agent: filter.agent,
    verb: filter.verb,
    activity: filter.activity,
    registration: filter.registration,
    relatedAgents: filter.related_agents === true,
    relatedActivities: filter.related_activities === true,
    since: filter.since ? new Date(filter.since) : null,
    until: filter.until ? new Date(filter.until) : null
  }
  const context = filter.grouping || filter.parent || filter.category
  if (!q.activity && context) Object.assign(q, { activity: context, relatedActivities: true })
  return q
}

// The ranges of `stored` to read ({ since, until } as GET /statements
// takes them, in order; `base`: the store's query, whose since/until
// they keep within). A range on
// `stored` is one; a range on timestamps, where the storage says in which
// hours of `stored` those timestamps were stored (reportCounts.storedRanges,
// SQLite's rollups), is those hours: a month of a year-old store is
// read, not the year. (Statements usually reach the LRS within minutes of
// their timestamp; an import stored today narrows to today's hours.)
const MAX_WINDOWS = 100
async function storedWindows (report, { counts, store, base }) {
  const f = report.filter
  const within = { since: base.since, until: base.until }
  if (!f.from && !f.to) return [within]
  // [sinceMs, untilMs) as since (excluded) and until (included), within the filter's (null: open)
  const bound = (ms, pick, given) => {
    const values = [ms, given && given.getTime()].filter(Number.isFinite)
    return values.length ? new Date(pick(...values)) : null
  }
  const clip = (sinceMs, untilMs) => ({ since: bound(sinceMs - 1, Math.max, within.since), until: bound(untilMs - 1, Math.min, within.until) })
  const fromMs = f.from ? Date.parse(f.from) : -Infinity
  const toMs = f.to ? Date.parse(f.to) : Infinity
  if (report.timeField === 'stored') return [clip(fromMs, toMs)]
  if (!counts) return [within]
  const hour = (ms, round) => Number.isFinite(ms) ? round(ms / HOUR_MS) : Math.sign(ms) * Number.MAX_SAFE_INTEGER
  let ranges = await counts.storedRanges({ store, fromHour: hour(fromMs, Math.floor), toHour: hour(toMs, Math.ceil) })
  if (!ranges) return [within]
  if (ranges.length > MAX_WINDOWS) ranges = [{ sinceMs: ranges[0].sinceMs, untilMs: ranges[ranges.length - 1].untilMs }]
  return ranges.map((r) => clip(r.sinceMs, r.untilMs))
}

// `statements`, `counts`: the storage's (statements.query, reportCounts);
// `store`: the credential's store number; `authorityKey`: only the
// statements stored with it (statements/read/mine).
async function runReport (report, { statements, counts = null, store, authorityKey = null, timeoutMs }) {
  const started = Date.now()
  const deadline = started + timeoutMs
  if (counts && rollupAnswers(report, { authorityKey }) && await counts.available()) {
    const answer = await runFromRollups(report, { counts, store, deadline })
    if (answer) return answer
  }
  const accumulator = report.shape ? SHAPE_ACCUMULATORS[report.shape](report) : groupReport(report)
  const residual = residualFilter(report)
  const base = storeQuery(report.filter)
  let scanned = 0
  let counted = 0
  let incomplete = false
  for (const window of await storedWindows(report, { counts, store, base })) {
    const q = { ...base, ...window }
    if (q.since && q.until && q.since >= q.until) continue
    let after = null
    for (;;) {
      const rows = await statements.query(statementQuery(storageQueryFields({ ...q, authorityKey, ascending: true, after, limit: PAGE }, store)), { deadline })
      for (const row of rows) {
        const s = JSON.parse(withStored(row))
        scanned++
        if (residual && !residual(s)) continue
        if (accumulator.size() >= MAX_TRACKED_GROUPS && !accumulator.has(s)) {
          incomplete = true
          continue
        }
        accumulator.add(s)
        counted++
      }
      if (Date.now() > deadline) throw errors.ReportTimeout()
      await new Promise((resolve) => setImmediate(resolve)) // other requests between pages
      if (rows.length < PAGE) break
      const last = rows[rows.length - 1]
      after = { stored: last.stored, position: last.position }
    }
  }
  const all = accumulator.rows()
  return {
    columns: accumulator.columns,
    rows: all.slice(0, report.maxGroups),
    groups: all.length,
    truncated: all.length > report.maxGroups || incomplete,
    statementsRead: scanned,
    statementsCounted: counted,
    source: 'statements',
    tookMs: Date.now() - started
  }
}

module.exports = { runReport }
