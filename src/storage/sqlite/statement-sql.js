'use strict'

// Translates the engine-neutral statement query (src/storage/statement-query.js)
// into SQL that walks one index in `seq` (stored) order and stops at the
// limit: the most selective filter drives (registration, agent, activity,
// verb, authority; else the statements table itself), each of its terms
// is one ordered arm in each term table (schema.js), arms are merged
// (UNION, no sort), and the other
// filters are checked on the rows met. Every value is a bound parameter.

const { agentTerms, agentTerm, activityTerms } = require('./terms')
const { STORE_TERM, plainTermId } = require('./store-terms')
const { TERM_TABLES } = require('./schema')

function placeholders (n) {
  return new Array(n).fill('?').join(', ')
}

// Whether the statement at `seqColumn` has one of the term ids `ids`: a
// lookup in each term table (schema.js), `first` first. A statement's
// rows are all in one level but while a merge round moves them, so where
// the row that drives the query was found (`first`) the others almost
// always are: SQLite stops at the first lookup that finds one. The other
// tables follow smallest first, which is the cheapest order for a term
// the statement does not have (every table is looked in).
function hasTerm (ids, seqColumn, first = null) {
  const tables = first ? [first, ...TERM_TABLES.filter((table) => table !== first)] : TERM_TABLES
  return {
    sql: '(' + tables.map((table) => `EXISTS (SELECT 1 FROM ${table} x WHERE x.term IN (${placeholders(ids.length)}) AND x.seq = ${seqColumn})`).join(' OR ') + ')',
    params: tables.flatMap(() => ids)
  }
}

// The filters of q, most selective kind first (the order a
// query's driving filter is chosen in): [{ name, terms }], a statement
// matching the filter having one of the terms.
function filterTerms (q) {
  const filters = []
  if (q.registration) filters.push({ name: 'registration', terms: ['g:' + q.registration] })
  if (q.agent) filters.push({ name: 'agent', terms: agentTerms(q.agent, q.relatedAgents) })
  if (q.activity) filters.push({ name: 'activity', terms: activityTerms(q.activity, q.relatedActivities) })
  if (q.verb) filters.push({ name: 'verb', terms: ['v:' + q.verb] })
  return filters
}

// The ids of those of `terms` ever stored.
function termIds (terms, termId) {
  return terms.map(termId).filter((id) => id !== undefined)
}

// `termId(term)` -> id or undefined. Returns { sql, params, driver } selecting
// the seq of matching statements in order (`driver`: the term id of the
// first arm, when an index drives), or null when nothing can match.
// `within` ({ low, high }, inclusive): a window of seq to stay in.
// `lastSeqAt(ms)`: the last seq of what was stored at or before ms.
// `defaultFrom`: the last seq before the default store's statements got the
// store term (store-terms.js, DEFAULT_TERM_FROM); null while it has none.
function statementSeqQuery (q, { termId, lastSeqAt, orSeqs = [], within = {}, defaultFrom = null }) {
  const ids = (terms) => termIds(terms, termId)
  const filters = filterTerms(q)
  if (q.authorityKey) filters.push({ name: 'authority', terms: [agentTerm('u', q.authorityKey)] })
  // `termId` gives the term ids of the query's store (store-terms.js), so
  // every filter's rows are its own; without a filter, a store's statements
  // are its store term's, and the default store's are those of the
  // statements table without a store (store IS NULL) up to `tableUpTo`,
  // and its store term's after.
  let tableUpTo = null
  if (!filters.length && q.store) filters.push({ name: 'store', terms: [STORE_TERM] })
  else if (!filters.length) {
    const storeTerm = defaultFrom === null ? undefined : termId(STORE_TERM)
    if (storeTerm !== undefined) filters.push({ name: 'store', terms: [STORE_TERM] })
    tableUpTo = storeTerm === undefined ? Infinity : defaultFrom
  }
  const resolved = filters.map((f) => ({ ...f, ids: ids(f.terms) }))

  // Bounds on seq: since (exclusive) and until (inclusive) on stored, and the keyset position.
  let low = q.since ? lastSeqAt(q.since.getTime()) + 1 : null
  let high = q.until ? lastSeqAt(q.until.getTime()) : null
  if (q.after) {
    const position = Number(q.after.position)
    if (q.ascending) low = Math.max(low ?? -Infinity, position + 1)
    else high = Math.min(high ?? Infinity, position - 1)
  }
  if (within.low !== undefined) low = Math.max(low ?? -Infinity, within.low)
  if (within.high !== undefined) high = Math.min(high ?? Infinity, within.high)
  const bounds = (column) => {
    const sql = []
    const params = []
    if (low !== null) { sql.push(`${column} >= ?`); params.push(low) }
    if (high !== null) { sql.push(`${column} <= ?`); params.push(high) }
    return { sql, params }
  }

  // Checks of the filters that do not drive: lookups in the term index
  // only, which SQLite makes before it reads the statement row, so a
  // statement's page is read only when it matches (a registration with
  // hundreds of statements and a verb few of them have reads only those).
  // `first`: the term table of the driving row `t`, which carries its
  // statement's verb (schema.js, VERB_IN_TERM_ROWS; NULL when not known):
  // that check comes first, as SQLite makes them in order.
  const checks = (rest, seqColumn, first) => {
    const sql = []
    const params = []
    const onRow = first ? rest.filter((f) => f.name === 'verb') : []
    for (const f of onRow) {
      const has = hasTerm(f.ids, seqColumn, first)
      sql.push(`(t.verb = ? OR (t.verb IS NULL AND ${has.sql}))`)
      params.push(plainTermId(f.ids[0]), ...has.params) // the dictionary's id (store-terms.js)
    }
    for (const f of rest.filter((f) => !onRow.includes(f))) {
      const has = hasTerm(f.ids, seqColumn, first)
      sql.push(has.sql)
      params.push(...has.params)
    }
    sql.push('s.voided = 0')
    return { sql, params }
  }

  const matchPossible = resolved.every((f) => f.ids.length > 0)
  const arms = []
  let driverTerm = null
  if (matchPossible) {
    const [driver, ...rest] = resolved
    if (tableUpTo !== null) {
      if (low === null) low = 0 // a range of the rowid: SQLite walks it in order from the end the direction wants
      const b = bounds('s.seq')
      if (tableUpTo !== Infinity) { b.sql.push('s.seq <= ?'); b.params.push(tableUpTo) }
      const c = checks([], 's.seq')
      arms.push({ sql: `SELECT s.seq FROM statements s WHERE ${[...b.sql, ...c.sql, 's.store IS NULL'].join(' AND ')}`, params: [...b.params, ...c.params] })
    }
    if (driver) {
      driverTerm = driver.ids[0]
      for (const term of driver.ids) {
        for (const table of TERM_TABLES) {
          const b = bounds('t.seq')
          const c = checks(rest, 't.seq', table)
          arms.push({
            sql: `SELECT t.seq FROM ${table} t JOIN statements s ON s.seq = t.seq WHERE ${['t.term = ?', ...b.sql, ...c.sql].join(' AND ')}`,
            params: [term, ...b.params, ...c.params]
          })
        }
      }
    }
  }
  if (orSeqs.length) {
    // Statements that match through a StatementRef (Communication 2.1.4):
    // time, position, voiding and authority still apply.
    const b = bounds('s.seq')
    const c = checks(resolved.filter((f) => f.name === 'authority'), 's.seq')
    // (one parameter, a JSON array, however many: one prepared statement
    // for every count, and no limit on SQLite's parameters)
    arms.push({ sql: `SELECT s.seq FROM statements s WHERE ${['s.seq IN (SELECT value FROM json_each(?))', ...b.sql, ...c.sql].join(' AND ')}`, params: [JSON.stringify(orSeqs), ...b.params, ...c.params] })
  }
  if (!arms.length) return null
  const order = q.ascending ? 'ASC' : 'DESC'
  return {
    sql: `${arms.map((a) => a.sql).join(' UNION ')} ORDER BY 1 ${order} LIMIT ?`,
    params: [...arms.flatMap((a) => a.params), q.limit],
    driver: driverTerm,
    bounds: { low, high }
  }
}

// Statements with some StatementRef pointing at them that match the
// filters (Communication 2.1.4), every one: few, found through a partial
// index (or among `seqs`).
function referencedQuery (q, { termId, seqs = null }) {
  const sql = ['s.referenced = 1', 's.store IS ?']
  const params = [q.store || null]
  // only these statements (a JSON array: one prepared statement for any count)
  if (seqs) { sql.unshift('s.seq IN (SELECT value FROM json_each(?))'); params.unshift(JSON.stringify(seqs)) }
  // false when none of the filter's terms was ever stored: nothing matches
  const filterBy = (terms, test) => {
    const ids = termIds(terms, termId)
    if (!ids.length) return false
    test(ids)
    return true
  }
  const ok = [
    !q.registration || filterBy(['g:' + q.registration], ([id]) => { sql.push('s.registration = ?'); params.push(id) }),
    !q.verb || filterBy(['v:' + q.verb], ([id]) => { sql.push('s.verb = ?'); params.push(plainTermId(id)) }),
    !q.agent || filterBy(agentTerms(q.agent, q.relatedAgents), (ids) => { const has = hasTerm(ids, 's.seq'); sql.push(has.sql); params.push(...has.params) }),
    !q.activity || filterBy(activityTerms(q.activity, q.relatedActivities), (ids) => { const has = hasTerm(ids, 's.seq'); sql.push(has.sql); params.push(...has.params) })
  ].every(Boolean)
  if (!ok) return null
  return { sql: `SELECT s.id FROM statements s WHERE ${sql.join(' AND ')}`, params }
}

// The postings of each of q's filters, most selective kind first: for
// each, { sql, params } selecting its statements' seqs up to `limit`
// (every term table, no order; a row that a merge is moving may come
// twice); or null when one of its terms was never stored (nothing
// matches). A statement matching q is among the postings of every one.
function filterPostingsQueries (q, { termId, limit }) {
  const queries = []
  for (const { terms } of filterTerms(q)) {
    const ids = termIds(terms, termId)
    if (!ids.length) return null
    queries.push({
      sql: `${TERM_TABLES.map((table) => `SELECT seq FROM ${table} WHERE term IN (${placeholders(ids.length)})`).join(' UNION ALL ')} LIMIT ?`,
      params: [...TERM_TABLES.flatMap(() => ids), limit]
    })
  }
  return queries
}

module.exports = { statementSeqQuery, referencedQuery, filterPostingsQueries, placeholders }
