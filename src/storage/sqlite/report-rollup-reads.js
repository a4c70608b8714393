'use strict'

// Reads of the reports' rollups (report-rollups.js) for run-report.js:
// statements per verb, the distinct learners and a course's funnel, of a
// store over a range of whole hours of their timestamps. Callers ask a
// range at a time (a bucket, or part of one) and yield between, so a
// report over a whole store never holds a worker for long.

const { termReader } = require('./terms')
const { DICT_TABLES } = require('./schema')
const { BoundedMap } = require('../../lib/bounded-map')

const HOUR_MS = 3600000

function reportCountsRepository (db) {
  const termId = termReader(db, { dictTables: DICT_TABLES })
  const termString = db.prepare('SELECT term FROM terms WHERE id = ?').pluck()
  const strings = new BoundedMap(100000)
  // 'v:<iri>' -> <iri>; 0 (an object not an Activity) -> null
  const named = (id) => {
    if (!id) return null
    let s = strings.get(id)
    if (s === undefined) strings.set(id, (s = termString.get(id).slice(2)))
    return s
  }
  const span = db.prepare('SELECT min(hour) AS first, max(hour) AS last FROM report_verb_hours WHERE store = ? AND n > 0')
  const prepared = new Map()
  // per verb, or all of them
  const statementsSql = {
    all: db.prepare('SELECT sum(n) AS n FROM report_verb_hours WHERE store = @store AND hour >= @from AND hour < @to HAVING sum(n) > 0'),
    verb: db.prepare('SELECT sum(n) AS n FROM report_verb_hours WHERE store = @store AND hour >= @from AND hour < @to AND verb = @verb HAVING sum(n) > 0'),
    byVerb: db.prepare('SELECT verb, sum(n) AS n FROM report_verb_hours WHERE store = @store AND hour >= @from AND hour < @to GROUP BY verb HAVING sum(n) > 0')
  }
  const storedHours = db.prepare('SELECT stored_hour FROM report_stored_hours WHERE store = ? AND first_hour < ? AND last_hour >= ? ORDER BY stored_hour').pluck()
  const funnelIn = db.prepare(`SELECT object, learner, sum(n) AS n, sum(launched) AS launched, sum(completed) AS completed, sum(passed) AS passed
    FROM report_funnel_hours WHERE store = ? AND grouping = ? AND hour >= ? AND hour < ? GROUP BY object, learner HAVING sum(n) > 0`)
  const learnersIn = db.prepare('SELECT DISTINCT learner FROM report_learner_hours WHERE store = ? AND hour >= ? AND hour < ? AND n > 0').pluck()

  return {
    source: 'rollups',
    available: async () => true,
    // The first and last hour holding a counted statement of `store`, or null.
    async span ({ store }) {
      const { first, last } = span.get(store)
      return first === null ? null : { firstHour: first, lastHour: last }
    },
    // [{ verb?, n }] of the hours fromHour..toHour (excluded), per verb
    // (`by` ['verb']) or not, of `verb` (an IRI) when given.
    async statements ({ store, fromHour, toHour, verb = null, by = [] }) {
      const params = { store, from: fromHour, to: toHour }
      if (verb && (params.verb = termId('v:' + verb)) === undefined) return [] // never stored
      if (by.includes('verb')) return statementsSql.byVerb.all(params).map((row) => ({ verb: named(row.verb), n: row.n })).filter((row) => !verb || row.verb === verb)
      return (verb ? statementsSql.verb : statementsSql.all).all(params).map((row) => ({ n: row.n }))
    },
    // The ranges of `stored` ([{ sinceMs, untilMs }], in order, untilMs
    // excluded) that hold every counted statement whose timestamp is in
    // the hours fromHour..toHour (excluded), and maybe others.
    async storedRanges ({ store, fromHour, toHour }) {
      const ranges = []
      for (const hour of storedHours.all(store, toHour, fromHour)) {
        const last = ranges[ranges.length - 1]
        if (last && last.untilMs === hour * HOUR_MS) last.untilMs += HOUR_MS
        else ranges.push({ sinceMs: hour * HOUR_MS, untilMs: (hour + 1) * HOUR_MS })
      }
      return ranges
    },
    // The completion funnel's counts per object activity and learner (an
    // opaque number) of the statements under `grouping` (an IRI) in those
    // hours: [{ activity, learner, n, launched, completed, passed }].
    async funnel ({ store, grouping, fromHour, toHour }) {
      const id = termId('c:' + grouping)
      if (id === undefined) return []
      return funnelIn.all(store, id, fromHour, toHour).map((row) => ({ ...row, activity: named(row.object) }))
    },
    // The learners (opaque numbers) with a counted statement in those hours.
    async learners ({ store, fromHour, toHour }) {
      return learnersIn.all(store, fromHour, toHour)
    }
  }
}

module.exports = { reportCountsRepository }
