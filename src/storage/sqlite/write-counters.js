'use strict'

// The hourly counters (schema.js, hourly_totals and hourly_terms) that the
// writes of statements keep: storing adds to them, a restamp moves counts
// from one hour to another, an erasure and a store's purge take them away.
// Apart because all of those write them, in memory first and in rows at
// the end of an operation or of a transaction, and none of them owns them.

const { plainTermId } = require('./store-terms')
const { HOUR_MS, COUNTED_KINDS } = require('./schema')
const { rollupCounts } = require('./report-rollups')

const COUNTED = new Set(COUNTED_KINDS) // schema.js, hourly_terms
const TERM_KEY_SPAN = 2 ** 32

// The hourly counters, added to in memory while an operation runs and
// written at its end (a row per hour and term, not per statement), and
// with them the reports' rollups (report-rollups.js, `roll`).
// `add(storedMs, termIds, termStrings, delta)`: termStrings (the record's,
// in the order of termIds: each a string, or the id where the worker sent
// that) or null; a term without its string is looked up by id.
// storeBatch `keep()`s its counts instead, and those of a whole
// transaction are written once before it commits (`flushKept()`): written
// per request, each request's upserts of the same hour and verbs and
// activities cost the writer more the more workers split the load into
// smaller requests.
function counters (db) {
  const addTotal = db.prepare('INSERT INTO hourly_totals (hour, count) VALUES (?, ?) ON CONFLICT (hour) DO UPDATE SET count = count + excluded.count')
  const addTerm = db.prepare('INSERT INTO hourly_terms (hour, term, count) VALUES (?, ?, ?) ON CONFLICT (hour, term) DO UPDATE SET count = count + excluded.count')
  const kindOf = db.prepare('SELECT substr(term, 1, 2) FROM terms WHERE id = ?').pluck()
  const kinds = new Map() // term id -> its prefix; ids never change
  const totals = new Map()
  const terms = new Map()
  const keptTotals = new Map()
  const keptTerms = new Map()
  const rollups = rollupCounts(db)
  // (by the dictionary's id: a term's kind is the same in every store)
  const counted = (id, i, strings) => {
    if (strings && typeof strings[i] === 'string') return COUNTED.has(strings[i].slice(0, 2))
    const plain = plainTermId(id)
    let kind = kinds.get(plain)
    if (kind === undefined) {
      kind = kindOf.get(plain)
      if (kinds.size > 100000) kinds.clear()
      kinds.set(plain, kind)
    }
    return COUNTED.has(kind)
  }
  function write (hourTotals, hourTerms) {
    for (const [hour, n] of hourTotals) if (n) addTotal.run(hour, n)
    for (const { hour, id, n } of hourTerms.values()) if (n) addTerm.run(hour, id, n)
    hourTotals.clear()
    hourTerms.clear()
  }
  return {
    add (storedMs, termIds, strings, delta) {
      const hour = Math.floor(storedMs / HOUR_MS)
      totals.set(hour, (totals.get(hour) || 0) + delta)
      for (let i = 0; i < termIds.length; i++) {
        const id = termIds[i]
        if (!counted(id, i, strings)) continue
        // one number for (hour, term) while term ids fit in 32 bits, a
        // store's (negative, store-terms.js) negative: a string key cost
        // the writer about 3 us a statement spread over 100 stores
        const key = id >= 0 && id < TERM_KEY_SPAN ? hour * TERM_KEY_SPAN + id : id < 0 && -id < TERM_KEY_SPAN ? -(hour * TERM_KEY_SPAN - id) : hour + ':' + id
        let counter = terms.get(key)
        if (!counter) terms.set(key, (counter = { hour, id, n: 0 }))
        counter.n += delta
      }
    },
    // a statement's rollup facts (report-rollups.js) counted `delta` times
    roll: rollups.add,
    clear () {
      totals.clear()
      terms.clear()
      rollups.clear()
    },
    flush () {
      write(totals, terms)
      rollups.flush()
    },
    // The operation's counts join the transaction's (it succeeded).
    keep () {
      for (const [hour, n] of totals) keptTotals.set(hour, (keptTotals.get(hour) || 0) + n)
      for (const [key, t] of terms) {
        const kept = keptTerms.get(key)
        if (kept) kept.n += t.n
        else keptTerms.set(key, t)
      }
      totals.clear()
      terms.clear()
      rollups.keep()
    },
    flushKept () {
      write(keptTotals, keptTerms)
      rollups.flushKept()
    },
    dropKept () {
      keptTotals.clear()
      keptTerms.clear()
      rollups.dropKept()
    }
  }
}

module.exports = { counters }
