'use strict'

// Rollups for reports (src/reports/): statements per store, hour of their
// timestamp and verb (report_verb_hours: a year of a store is some 60,000
// rows), per store, hour and learner
// (report_learner_hours); per store, grouping activity (a course), hour,
// object activity and learner, the statements and the completion funnel's
// steps (report_funnel_hours: a course's funnel over a month reads its
// rows, not its statements); and for each hour of `stored`, the hours of
// the timestamps stored in it (report_stored_hours), which narrows a report
// on a timestamp range to the stored ranges holding it. The writer keeps them with the hourly
// counters (write-counters.js), in the transaction that stores, voids or
// erases statements, so that a report asking only what they hold reads a
// few integers per hour instead of every statement's body (at 10 M
// statements: "statements per verb per month" in a second, not minutes).
// Voided statements never count: a voiding takes its target out
// (write-statements.js), an erasure its statements (write-deletion.js); a
// deleted store's rows go with it (write-stores.js). `object` 0: the
// statement's object is not an Activity; `learner` 0: its actor has no
// identifier (an anonymous Group), which reports count as one learner.

const { unpackBody } = require('./body-codec')
const { hashedAgent } = require('./terms')
const { storedMsOf } = require('./seq')
const { reportFields } = require('../../resources/statements/report-fields')

const HOUR_MS = 3600000

const ROLLUP_DDL = `
CREATE TABLE IF NOT EXISTS report_verb_hours (
  store INTEGER NOT NULL,
  hour INTEGER NOT NULL,
  verb INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (store, hour, verb)
) WITHOUT ROWID;
-- never narrowed when statements go: a superset of where they are
CREATE TABLE IF NOT EXISTS report_stored_hours (
  store INTEGER NOT NULL,
  stored_hour INTEGER NOT NULL,
  first_hour INTEGER NOT NULL,
  last_hour INTEGER NOT NULL,
  PRIMARY KEY (store, stored_hour)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS report_funnel_hours (
  store INTEGER NOT NULL,
  grouping INTEGER NOT NULL,
  hour INTEGER NOT NULL,
  object INTEGER NOT NULL,
  learner INTEGER NOT NULL,
  n INTEGER NOT NULL,
  launched INTEGER NOT NULL,
  completed INTEGER NOT NULL,
  passed INTEGER NOT NULL,
  PRIMARY KEY (store, grouping, hour, object, learner)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS report_learner_hours (
  store INTEGER NOT NULL,
  hour INTEGER NOT NULL,
  learner INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (store, hour, learner)
) WITHOUT ROWID;`

// A statement's steps of the completion funnel as bits.
const funnelBits = (f) => (f.launched ? 1 : 0) | (f.completes ? 2 : 0) | (f.passes ? 4 : 0)

// What a worker sends for a statement's rollups (statements.js,
// forWriter): where its object activity is among its terms, its learner's
// term (an agent term, terms.js), its groupings' terms (related activities)
// and its funnel bits.
function rollupTerms (record, allTerms) {
  return {
    objectAt: allTerms.findIndex((term) => term.startsWith('o:')),
    learner: record.learner ? 'a:' + hashedAgent(record.learner) : null,
    groupings: record.groupings.length ? record.groupings.map((id) => 'c:' + id) : undefined,
    funnel: funnelBits(record)
  }
}

// What a stored row counts under; `termId(term)` gives a term's id.
// Reads the body: only voidings, erasures and restamps come here.
function rowFacts (row, termId, storedMs = row.stored_ms ?? storedMsOf(row.seq)) {
  const s = JSON.parse(unpackBody(row.body))
  const fields = reportFields(s)
  const isActivity = s.object.objectType === undefined || s.object.objectType === 'Activity'
  return {
    store: row.store || 0,
    hour: Math.floor((row.ts === 1 ? storedMs : fields.timestampMs) / HOUR_MS),
    verb: row.verb,
    object: isActivity ? termId('o:' + s.object.id) || 0 : 0,
    learner: fields.learner ? termId('a:' + hashedAgent(fields.learner)) || 0 : 0,
    groupings: fields.groupings.map((id) => termId('c:' + id) || 0),
    funnel: funnelBits(fields)
  }
}

// Rows upserted into `table` ROWS_AT_ONCE to a statement: measured, a
// statement run per row cost the writer about 1 us a row, ~2 rows a
// statement stored.
const ROWS_AT_ONCE = 100
function upserts (db, table, columns, onConflict) {
  const prepared = new Map() // rows -> statement
  const statementFor = (rows) => {
    let st = prepared.get(rows)
    if (!st) {
      const values = new Array(rows).fill(`(${columns.map(() => '?').join(', ')})`).join(', ')
      prepared.set(rows, (st = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${values} ON CONFLICT DO UPDATE SET ${onConflict}`)))
    }
    return st
  }
  let params = []
  return {
    add (...values) { for (const v of values) params.push(v) },
    write () {
      const width = columns.length
      for (let i = 0; i < params.length; i += width * ROWS_AT_ONCE) {
        const chunk = params.slice(i, i + width * ROWS_AT_ONCE)
        statementFor(chunk.length / width).run(chunk)
      }
      params = []
    }
  }
}

// The rollups' counts, added to in memory while an operation runs and
// written at its end as the hourly counters are (write-counters.js). Kept
// per store and hour (a transaction's statements fall in a few), each
// count under a number rather than a string: measured, keys built per
// statement cost the writer about 4 us of its ~45 per statement.
function rollupCounts (db) {
  const added = (columns) => columns.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')
  const addVerb = upserts(db, 'report_verb_hours', ['store', 'hour', 'verb', 'n'], added(['n']))
  const addLearner = upserts(db, 'report_learner_hours', ['store', 'hour', 'learner', 'n'], added(['n']))
  const addFunnel = upserts(db, 'report_funnel_hours', ['store', 'grouping', 'hour', 'object', 'learner', 'n', 'launched', 'completed', 'passed'], added(['n', 'launched', 'completed', 'passed']))
  const addStored = upserts(db, 'report_stored_hours', ['store', 'stored_hour', 'first_hour', 'last_hour'], 'first_hour = min(first_hour, excluded.first_hour), last_hour = max(last_hour, excluded.last_hour)')
  // { hours: `${store}|${hour}` -> { store, hour, verbs, learners, funnel }, stored: `${store}|${storedHour}` -> { store, storedHour, first, last } }
  const made = () => ({ hours: new Map(), stored: new Map() })
  let current = made()
  let kept = made()
  // the hour and stored hour the last statement counted in (a transaction's
  // statements share them): no key made for the next
  let lastH = null
  let lastR = null
  const hourIn = (counts, store, hour) => {
    const key = store + '|' + hour
    let h = counts.hours.get(key)
    if (!h) counts.hours.set(key, (h = { counts, store, hour, verbs: new Map(), learners: new Map(), funnel: new Map() }))
    return h
  }
  // the funnel's counts of one grouping, object and learner, added to `map`
  function addFunnelCounts (map, key, ids, add) {
    let c = map.get(key)
    if (!c) map.set(key, (c = { grouping: ids.grouping, object: ids.object, learner: ids.learner, n: 0, launched: 0, completed: 0, passed: 0 }))
    c.n += add.n
    c.launched += add.launched
    c.completed += add.completed
    c.passed += add.passed
  }
  const bump = (map, key, n, make) => {
    const c = map.get(key)
    if (c) c.n += n
    else map.set(key, make(n))
  }
  const widen = (counts, store, storedHour, first, last) => {
    const key = store + '|' + storedHour
    let r = counts.stored.get(key)
    if (!r) counts.stored.set(key, (r = { counts, store, storedHour, first, last }))
    else {
      if (first < r.first) r.first = first
      if (last > r.last) r.last = last
    }
    return r
  }
  // every count of `from` into `into`
  function merge (from, into) {
    for (const h of from.hours.values()) {
      const to = hourIn(into, h.store, h.hour)
      for (const [k, c] of h.verbs) bump(to.verbs, k, c.n, (n) => ({ n }))
      for (const [k, c] of h.learners) bump(to.learners, k, c.n, (n) => ({ n }))
      for (const [k, c] of h.funnel) addFunnelCounts(to.funnel, k, c, c)
    }
    for (const r of from.stored.values()) widen(into, r.store, r.storedHour, r.first, r.last)
  }
  function write (counts) {
    for (const h of counts.hours.values()) {
      for (const [verb, c] of h.verbs) if (c.n) addVerb.add(h.store, h.hour, verb, c.n)
      for (const [learner, c] of h.learners) if (c.n) addLearner.add(h.store, h.hour, learner, c.n)
      for (const c of h.funnel.values()) if (c.n || c.launched || c.completed || c.passed) addFunnel.add(h.store, c.grouping, h.hour, c.object, c.learner, c.n, c.launched, c.completed, c.passed)
    }
    for (const r of counts.stored.values()) addStored.add(r.store, r.storedHour, r.first, r.last)
    for (const table of [addVerb, addLearner, addFunnel, addStored]) table.write()
  }
  return {
    // `storedHour`: where a statement being stored goes (a count taken
    // away leaves the stored hours as they are)
    add (f, delta, storedHour = null) {
      const h = lastH && lastH.counts === current && lastH.store === f.store && lastH.hour === f.hour ? lastH : (lastH = hourIn(current, f.store, f.hour))
      bump(h.verbs, f.verb, delta, (n) => ({ n }))
      bump(h.learners, f.learner, delta, (n) => ({ n }))
      if (f.groupings) {
        const steps = { n: delta, launched: f.funnel & 1 ? delta : 0, completed: f.funnel & 2 ? delta : 0, passed: f.funnel & 4 ? delta : 0 }
        for (const grouping of f.groupings) addFunnelCounts(h.funnel, `${grouping}|${f.object}|${f.learner}`, { grouping, object: f.object, learner: f.learner }, steps)
      }
      if (storedHour === null) return
      if (lastR && lastR.counts === current && lastR.store === f.store && lastR.storedHour === storedHour) {
        if (f.hour < lastR.first) lastR.first = f.hour
        if (f.hour > lastR.last) lastR.last = f.hour
      } else lastR = widen(current, f.store, storedHour, f.hour, f.hour)
    },
    clear () { current = made() },
    flush () {
      write(current)
      current = made()
    },
    keep () {
      merge(current, kept)
      current = made()
    },
    flushKept () {
      write(kept)
      kept = made()
    },
    dropKept () { kept = made() }
  }
}

// A store's rollups, when it is deleted.
function dropStoreRollups (db, store) {
  for (const table of ['report_verb_hours', 'report_learner_hours', 'report_funnel_hours', 'report_stored_hours']) db.prepare(`DELETE FROM ${table} WHERE store = ?`).run(store)
}

// The rollups of the statements a store held before it had them (schema
// version 15): every statement's body read once, a million in about a
// minute on 2 cores.
function buildReportRollups (db, termId) {
  const counts = rollupCounts(db)
  const chunk = db.prepare('SELECT seq, ts, stored_ms, store, verb, body FROM statements WHERE seq > ? AND voided = 0 ORDER BY seq LIMIT 10000')
  for (let after = -1, rows; (rows = chunk.all(after)).length;) {
    for (const row of rows) counts.add(rowFacts(row, termId), 1, Math.floor((row.stored_ms ?? storedMsOf(row.seq)) / HOUR_MS))
    counts.flush()
    after = rows[rows.length - 1].seq
  }
}

module.exports = { ROLLUP_DDL, HOUR_MS, rollupTerms, rowFacts, rollupCounts, dropStoreRollups, buildReportRollups }
