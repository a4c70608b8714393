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
// on each (the tests compare them).

const { errors } = require('../errors')
const { statementQuery } = require('../storage/statement-query')
const { storageQueryFields } = require('../stores/store-keys')
const { withStored } = require('../resources/statements/statement-record')
const { residualFilter } = require('./statement-values')
const { groupReport } = require('./group-report')
const { SHAPE_ACCUMULATORS } = require('./report-shapes')

const PAGE = 1000
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

// `statements`: the storage's; `store`: the credential's store number;
// `authorityKey`: only the statements stored with it (statements/read/mine).
async function runReport (report, { statements, store, authorityKey = null, timeoutMs }) {
  const started = Date.now()
  const deadline = started + timeoutMs
  const accumulator = report.shape ? SHAPE_ACCUMULATORS[report.shape](report) : groupReport(report)
  const residual = residualFilter(report)
  const base = storeQuery(report.filter)
  let after = null
  let scanned = 0
  let counted = 0
  let incomplete = false
  for (;;) {
    const rows = await statements.query(statementQuery(storageQueryFields({ ...base, authorityKey, ascending: true, after, limit: PAGE }, store)), { deadline })
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
    if (rows.length < PAGE) break
    const last = rows[rows.length - 1]
    after = { stored: last.stored, position: last.position }
    if (Date.now() > deadline) throw errors.ReportTimeout()
    await new Promise((resolve) => setImmediate(resolve)) // other requests between pages
  }
  const all = accumulator.rows()
  return {
    columns: accumulator.columns,
    rows: all.slice(0, report.maxGroups),
    groups: all.length,
    truncated: all.length > report.maxGroups || incomplete,
    statementsRead: scanned,
    statementsCounted: counted,
    tookMs: Date.now() - started
  }
}

module.exports = { runReport }
