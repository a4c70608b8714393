'use strict'

// Rollups for reports (src/reports/): statements per store, hour of their
// timestamp, verb and object activity (report_hours), the same per verb
// alone (report_verb_hours: a year of a store is some 60,000 rows of it,
// against millions of the first), per store, hour and learner
// (report_learner_hours); and for each hour of `stored`, the hours of the
// timestamps stored in it (report_stored_hours), which narrows a report
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
const { agentKey } = require('../../resources/agents/agent-keys')

const HOUR_MS = 3600000

const ROLLUP_DDL = `
CREATE TABLE IF NOT EXISTS report_hours (
  store INTEGER NOT NULL,
  hour INTEGER NOT NULL,
  verb INTEGER NOT NULL,
  object INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (store, hour, verb, object)
) WITHOUT ROWID;
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
CREATE TABLE IF NOT EXISTS report_learner_hours (
  store INTEGER NOT NULL,
  hour INTEGER NOT NULL,
  learner INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (store, hour, learner)
) WITHOUT ROWID;`

// The terms a worker sends for a statement's rollups (statements.js,
// forWriter): where its object activity is among its terms, and its
// learner's term (an agent term, terms.js).
function rollupTerms (record, allTerms) {
  return {
    objectAt: allTerms.findIndex((term) => term.startsWith('o:')),
    learner: record.learner ? 'a:' + hashedAgent(record.learner) : null
  }
}

// What a stored row counts under; `termId(term)` gives a term's id.
// Reads the body: only voidings, erasures and restamps come here.
function rowFacts (row, termId, storedMs = row.stored_ms ?? storedMsOf(row.seq)) {
  const s = JSON.parse(unpackBody(row.body))
  const key = agentKey(s.actor)
  const isActivity = s.object.objectType === undefined || s.object.objectType === 'Activity'
  return {
    store: row.store || 0,
    hour: Math.floor((row.ts === 1 ? storedMs : Date.parse(s.timestamp)) / HOUR_MS),
    verb: row.verb,
    object: isActivity ? termId('o:' + s.object.id) || 0 : 0,
    learner: key ? termId('a:' + hashedAgent(key)) || 0 : 0
  }
}

// The rollups' counts, added to in memory while an operation runs and
// written at its end as the hourly counters are (write-counters.js).
function rollupCounts (db) {
  const addHour = db.prepare('INSERT INTO report_hours (store, hour, verb, object, n) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n')
  const addLearner = db.prepare('INSERT INTO report_learner_hours (store, hour, learner, n) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n')
  const addVerb = db.prepare('INSERT INTO report_verb_hours (store, hour, verb, n) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET n = n + excluded.n')
  const addStored = db.prepare(`INSERT INTO report_stored_hours (store, stored_hour, first_hour, last_hour) VALUES (?, ?, ?, ?)
    ON CONFLICT DO UPDATE SET first_hour = min(first_hour, excluded.first_hour), last_hour = max(last_hour, excluded.last_hour)`)
  const made = () => ({ hours: new Map(), verbs: new Map(), learners: new Map(), stored: new Map() })
  let current = made()
  let kept = made()
  const bump = (map, key, values, delta) => {
    const counter = map.get(key)
    if (counter) counter.n += delta
    else map.set(key, { values, n: delta })
  }
  function write (counts) {
    for (const { values, n } of counts.hours.values()) if (n) addHour.run(...values, n)
    for (const { values, n } of counts.verbs.values()) if (n) addVerb.run(...values, n)
    for (const { values, n } of counts.learners.values()) if (n) addLearner.run(...values, n)
    for (const { values, first, last } of counts.stored.values()) addStored.run(...values, first, last)
    for (const map of Object.values(counts)) map.clear()
  }
  const widen = (map, key, values, hour) => {
    const range = map.get(key)
    if (!range) map.set(key, { values, first: hour, last: hour })
    else if (hour < range.first) range.first = hour
    else if (hour > range.last) range.last = hour
  }
  return {
    // `storedHour`: where a statement being stored goes (a count taken
    // away leaves the stored hours as they are)
    add (f, delta, storedHour = null) {
      bump(current.hours, `${f.store}|${f.hour}|${f.verb}|${f.object}`, [f.store, f.hour, f.verb, f.object], delta)
      bump(current.verbs, `${f.store}|${f.hour}|${f.verb}`, [f.store, f.hour, f.verb], delta)
      bump(current.learners, `${f.store}|${f.hour}|${f.learner}`, [f.store, f.hour, f.learner], delta)
      if (storedHour !== null) widen(current.stored, `${f.store}|${storedHour}`, [f.store, storedHour], f.hour)
    },
    clear () { current = made() },
    flush: () => write(current),
    keep () {
      for (const kind of ['hours', 'verbs', 'learners']) {
        for (const [key, c] of current[kind]) bump(kept[kind], key, c.values, c.n)
      }
      for (const [key, r] of current.stored) {
        widen(kept.stored, key, r.values, r.first)
        widen(kept.stored, key, r.values, r.last)
      }
      current = made()
    },
    flushKept: () => write(kept),
    dropKept () { kept = made() }
  }
}

// A store's rollups, when it is deleted.
function dropStoreRollups (db, store) {
  for (const table of ['report_hours', 'report_verb_hours', 'report_learner_hours', 'report_stored_hours']) db.prepare(`DELETE FROM ${table} WHERE store = ?`).run(store)
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
