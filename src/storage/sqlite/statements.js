'use strict'

// Statements on SQLite: writes go to the writer thread (write-ops.js), reads
// run here on the worker's read connection. Each request of a batch is all
// or nothing inside one transaction, so no other request ever sees a
// statement that will be undone. A request whose ids are taken is undone
// and reported; its statements are compared with the stored ones here and,
// when all are the same, it is stored again without them (stored
// statements never change, so the comparison holds).

const { upstreamsFor } = require('../../forwarding/upstreams')
const { errors } = require('../../errors')
const { idToBlob, blobToId } = require('./ids')
const { storedOf, lastSeqOf } = require('./seq')
const { rollupTerms } = require('./report-rollups')
const { termReader, agentTerm, agentTerms, termsOf, hashedAgent, CACHED_TERMS } = require('./terms')
const { storeOf } = require('../../stores/store-keys')
const { STORE_TERM, defaultTermFromReader, termIn, storeTermReader, plainTermId, storeOfTermId } = require('./store-terms')
const { BoundedMap } = require('../../lib/bounded-map')
const { statementSeqQuery, referencedQuery, filterPostingsQueries, placeholders } = require('./statement-sql')
const { TERM_TABLES, ID_TABLES, DICT_TABLES, SEQ_OF_ID, HOUR_MS } = require('./schema')
const { packBody, unpackBody } = require('./body-codec')
const { referencingThroughTargets, MAX_DEPTH: MAX_REFERENCE_DEPTH } = require('../statement-refs')

const MAX_SAME_ROUNDS = 10
// Query SQL is made per query (its filters, its number of ids); the
// statements of the shapes seen last are kept prepared, since preparing
// was about 4 % of a worker's time serving pages of statements.
const PREPARED_QUERIES = 256
// A filtered query walks its driving term's postings in windows of this
// many, yielding the event loop between windows: a walk that must go far
// to find its page (a term every statement has, and a rare second filter)
// never holds the worker for long, and stops at the query deadline.
const WINDOW_POSTINGS = 2000
// A page whose own matches span at most this many statements looks for
// the StatementRefs among them (findReferencingIds): each is a row read.
const SPAN_ROWS = 10000
// A filter with at most this many statements in the store has its targeted
// statements found among them rather than among every targeted statement
// of the store (findReferencingIds).
const FEW_POSTINGS = 10000

// What the writer needs of a record: its terms, worked out here so the
// writer, which holds the file's write lock, does as little as it can; and
// its body packed (body-codec.js), here on the worker's core. A term this
// worker has sent before goes as its id (ids never change, and the
// dictionary never drops a term): the host has one writer for all the
// workers, so whatever it need not do raises what the host can ingest
// (profiled: its term lookups were 4 % of its time, and the strings most
// of what it deserialized, another 4 %). A term it has not sent goes as
// its string; the writer answers with the ids of those (`learned`, in the
// order sent), which this worker keeps. It never looks a term up for this
// itself: one look-up per new term cost the workers about 5 % of their
// time, about what the writer saved on a 2-core machine.
// `forwardTo`: the outbox entries the writer makes with the statement,
// decided here, where the record's query fields are (forwarders' filters).
function forWriter (r, known, storedMs, forwardTo) {
  const { registration, all } = termsOf(r)
  const terms = { registration: registration !== null, all: all.map((term) => known.get(term) || term) }
  const upstreams = upstreamsFor(forwardTo, r)
  const { objectAt, learner, groupings, funnel } = rollupTerms(r, all) // the reports' rollups (report-rollups.js)
  return {
    id: r.id, newId: r.newId === true, body: packBody(r.body), voiding: r.voiding, ref: r.ref, timestampFromStored: r.timestampFromStored, attachments: r.attachments, terms, storedMs, store: r.store || 0,
    timestampMs: r.timestampMs, objectAt, learner: learner && (known.get(learner) || learner), groupings: groupings && groupings.map((term) => known.get(term) || term), funnel,
    ...(upstreams.length && { upstreams })
  }
}

// `voided` where the query read it (scan: a CSV export leaves voided
// statements out).
function toRow (r) {
  const stored = typeof r.stored_ms === 'number' ? new Date(r.stored_ms) : storedOf(r.seq)
  const row = { id: blobToId(r.id), body: unpackBody(r.body), stored, timestampFromStored: r.ts === 1, position: String(r.seq) }
  if (r.voided !== undefined) row.voided = r.voided === 1
  return row
}

// The postings of one term (seq >= ? and <= ?) from every term table, in
// one order: the arms are merged, not sorted, and a row that is in a
// recent buffer and in the middle level (schema.js) counts once.
function postingsSql (order, { offset = false } = {}) {
  const arm = (table) => `SELECT seq FROM ${table} WHERE term = ? AND seq >= ? AND seq <= ?`
  return `${TERM_TABLES.map(arm).join(' UNION ')} ORDER BY 1 ${order} LIMIT ?${offset ? ' OFFSET ?' : ''}`
}

function statementsRepository (db, { writer, fewPostings: maxPostings = FEW_POSTINGS }) {
  const termId = termReader(db, { dictTables: DICT_TABLES })
  const preparedQueries = new BoundedMap(PREPARED_QUERIES)
  // A statement for `sql`, prepared once; `pluck`: it returns the first column.
  function prepared (sql, { pluck = false } = {}) {
    const key = (pluck ? 'p' : 'r') + sql
    let statement = preparedQueries.get(key)
    if (!statement) preparedQueries.set(key, statement = pluck ? db.prepare(sql).pluck() : db.prepare(sql))
    return statement
  }
  const knownTerms = new BoundedMap(CACHED_TERMS) // term -> id, as the writer answered (forWriter)
  function learn (sentRecords, ids) {
    let k = 0
    for (const r of sentRecords) for (const term of r.terms.all) if (typeof term === 'string') knownTerms.set(term, ids[k++])
  }
  // The seqs of stored ids, ascending; a thousand ids to a look-up (every
  // id table's arm takes them all, and SQLite takes 32,766 parameters).
  const seqsOfIds = (n) => prepared(ID_TABLES.map((table) => `SELECT seq FROM ${table} WHERE id IN (${placeholders(n)})`).join(' UNION '), { pluck: true })
  function seqsOf (ids) {
    const seqs = []
    for (let i = 0; i < ids.length; i += 1000) {
      const blobs = ids.slice(i, i + 1000).map(idToBlob)
      seqs.push(...seqsOfIds(blobs.length).all(ID_TABLES.flatMap(() => blobs)))
    }
    return seqs.sort((a, b) => a - b)
  }
  // every one (among `seqs`, when given)
  async function findReferencedIds (q, { seqs = null } = {}) {
    const query = referencedQuery(q, { termId: storeTermReader(termId, q.store), seqs })
    return query ? prepared(query.sql, { pluck: true }).all(query.params).map(blobToId) : []
  }

  async function findIdsReferencing (ids, { limit = -1 } = {}) {
    if (!ids.length) return []
    return prepared(`SELECT id FROM statements WHERE ref IN (${placeholders(ids.length)}) LIMIT ?`, { pluck: true }).all(...ids.map(idToBlob), limit).map(blobToId)
  }

  // The statements matching q through StatementRefs (Communication
  // 2.1.3.s3) that can be on a page whose own matches reach `beyond`
  // (a position; null: the page holds all of them). From the targets
  // (statement-refs.js), that costs what the store's targeted statements
  // number: a popular verb's page in a store with tens of thousands took
  // half a second. When the page's rows span few statements (a popular
  // filter's), those in its span that target a statement are looked at
  // instead, and their targets checked against the filters.
  const countSpan = db.prepare('SELECT count(*) FROM (SELECT 1 FROM statements WHERE seq >= ? AND seq <= ? LIMIT ?)').pluck()
  const refsInSpan = db.prepare('SELECT id, ref FROM statements WHERE seq >= ? AND seq <= ? AND ref IS NOT NULL AND store IS ?')
  const refsOf = db.prepare('SELECT id, ref FROM statements WHERE seq IN (SELECT value FROM json_each(?)) AND ref IS NOT NULL')
  // The seqs of the statements of q's most selective filter when it has
  // at most `maxPostings` ([] when nothing can match), else null.
  function fewPostings (q) {
    const queries = filterPostingsQueries(q, { termId: storeTermReader(termId, q.store), limit: maxPostings + 1 })
    if (!queries) return []
    for (const query of queries) {
      const seqs = prepared(query.sql, { pluck: true }).all(query.params)
      if (seqs.length <= maxPostings) return [...new Set(seqs)]
    }
    return null
  }
  const anyTargeted = db.prepare('SELECT 1 FROM statements WHERE referenced = 1 AND store IS ? LIMIT 1').pluck()
  async function findReferencingIds (q, { beyond = null, deadline = Infinity } = {}) {
    // a store without StatementRefs: nothing to look for (a partial index)
    if (!anyTargeted.get(q.store || null)) return []
    // The span a targeting statement on this page lies in: the query's
    // bounds (since, until, the page's start), and the page's (limit+1)-th
    // own match when it has that many. A page that holds all its own
    // matches spans the bounds where they close it on both sides (a verb's
    // statements of an hour: once read from every targeted statement of
    // the store, up to a second a page).
    const shared = { termId: storeTermReader(termId, q.store), lastSeqAt, defaultFrom: defaultFrom() }
    const first = statementSeqQuery(q, shared)
    if (first && (beyond !== null || (first.bounds.low !== null && first.bounds.high !== null))) {
      let { low, high } = first.bounds
      if (beyond !== null && q.ascending) high = Number(beyond)
      else if (beyond !== null) low = Number(beyond)
      low = low ?? 0
      high = high ?? Number.MAX_SAFE_INTEGER
      if (countSpan.get(low, high, SPAN_ROWS + 1) <= SPAN_ROWS) {
        const found = []
        let pending = refsInSpan.all(low, high, q.store || null).map((r) => ({ id: blobToId(r.id), target: blobToId(r.ref) }))
        for (let depth = 0; pending.length && depth < MAX_REFERENCE_DEPTH; depth++) {
          const targets = [...new Set(pending.map((p) => p.target))]
          const seqs = seqsOf(targets)
          const matching = new Set(await findReferencedIds(q, { seqs }))
          found.push(...pending.filter((p) => matching.has(p.target)).map((p) => p.id))
          // a target that does not match may target one that does
          const onwards = new Map(refsOf.all(JSON.stringify(seqs)).map((r) => [blobToId(r.id), blobToId(r.ref)]))
          pending = pending.filter((p) => !matching.has(p.target) && onwards.has(p.target)).map((p) => ({ id: p.id, target: onwards.get(p.target) }))
          if (Date.now() > deadline) throw errors.QueryTimeout()
        }
        return found
      }
    }
    // From the targets: a selective filter's among its own statements (an
    // agent's few hundred, where the store has tens of thousands targeted:
    // 105-384 ms a page when every one of those was checked), else any.
    const seqs = fewPostings(q)
    if (seqs && !seqs.length) return []
    const findTargets = (query) => findReferencedIds(query, { seqs })
    return referencingThroughTargets({ findReferencedIds: findTargets, findIdsReferencing }, q, { deadline })
  }
  const postings = { ASC: db.prepare(postingsSql('ASC')).pluck(), DESC: db.prepare(postingsSql('DESC')).pluck() }
  const windowEdge = { ASC: db.prepare(postingsSql('ASC', { offset: true })).pluck(), DESC: db.prepare(postingsSql('DESC', { offset: true })).pluck() }
  const termRange = (term, low, high) => TERM_TABLES.flatMap(() => [term, low, high])
  const byId = db.prepare(`SELECT seq, id, ts, body, stored_ms, authority FROM statements WHERE seq = (${SEQ_OF_ID}) AND voided = @voided`)
  const byIdAny = db.prepare(`SELECT seq, id, ts, body, stored_ms FROM statements WHERE seq = (${SEQ_OF_ID})`)
  const lrsTotal = db.prepare('SELECT sum(count) FROM hourly_totals').pluck()
  // A store's statements per hour, from its store term's counts (terms.js,
  // store-terms.js; schema.js, COUNTED_KINDS).
  const storeNumbers = db.prepare('SELECT number FROM stores WHERE number > 0 AND purged_at IS NULL').pluck() // a purged store has no counts left
  const termCounts = db.prepare('SELECT hour, count FROM hourly_terms WHERE term = ? AND hour BETWEEN ? AND ?')
  const termTotal = db.prepare('SELECT sum(count) FROM hourly_terms WHERE term = ?').pluck()
  const storeTermIds = (store) => {
    const id = termId(STORE_TERM)
    return id === undefined ? [] : (store ? [store] : storeNumbers.all()).map((n) => termIn(n, id))
  }
  // store-terms.js: null until the first store but the default one; then it never changes
  const readDefaultFrom = defaultTermFromReader(db)
  let knownDefaultFrom = null
  const defaultFrom = () => {
    if (knownDefaultFrom === null) knownDefaultFrom = readDefaultFrom()
    return knownDefaultFrom
  }
  function storedIn (store) {
    let total = store ? 0 : lrsTotal.get() || 0
    for (const term of storeTermIds(store)) total += (store ? 1 : -1) * (termTotal.get(term) || 0)
    return total
  }
  const hourTotals = db.prepare('SELECT hour, count FROM hourly_totals WHERE hour BETWEEN ? AND ?')
  // (a store's term ids, negative, are decoded here: store-terms.js)
  const hourTerms = db.prepare('SELECT term AS id, sum(count) AS count FROM hourly_terms WHERE hour BETWEEN ? AND ? GROUP BY term HAVING count > 0')
  const termString = db.prepare('SELECT term FROM terms WHERE id = ?').pluck()
  const scanRows = db.prepare('SELECT seq, id, ts, body, stored_ms, voided FROM statements WHERE seq > ? AND seq <= ? AND store IS NULL ORDER BY seq LIMIT ?') // the default store's (scan)
  const spilledSeq = db.prepare('SELECT seq FROM statements WHERE stored_ms IS NOT NULL AND stored_ms <= ? ORDER BY stored_ms DESC, seq DESC LIMIT 1').pluck()

  // The last seq of what was stored at or before `ms`, for since and
  // until: the end of its millisecond, or further when statements of it
  // were imported past its end (write-ops.js, insertStored).
  function lastSeqAt (ms) {
    const spilled = spilledSeq.get(ms)
    return spilled === undefined ? lastSeqOf(ms) : Math.max(lastSeqOf(ms), spilled)
  }

  // `voided`: read the flag too (scan)
  function rowsBySeq (seqs, { voided = false } = {}) {
    if (!seqs.length) return []
    const rows = prepared(`SELECT seq, id, ts, body, stored_ms${voided ? ', voided' : ''} FROM statements WHERE seq IN (${placeholders(seqs.length)})`).all(seqs)
    const bySeq = new Map(rows.map((r) => [r.seq, r]))
    return seqs.map((s) => bySeq.get(s)).filter(Boolean).map(toRow)
  }

  function findBodies (ids) {
    const found = new Map()
    for (const id of ids) {
      const r = byIdAny.get({ id: idToBlob(id) })
      if (r) found.set(id, toRow(r))
    }
    return found
  }

  return {
    async storeBatch (groups, { stored, sameStatement, forwardTo = null }) {
      const failed = new Map()
      const inserted = []
      const same = groups.map(() => [])
      let pending = groups.map((_, g) => g)
      const sent = groups.map((records) => records.map((r) => forWriter(r, knownTerms, undefined, forwardTo))) // once, whatever the rounds
      for (let round = 0; pending.length; round++) {
        if (round === MAX_SAME_ROUNDS) throw new Error('statement ids kept being taken while being stored')
        const results = await writer.call('storeBatch', pending.map((g) => sent[g]), { storedMs: stored.getTime(), same: pending.map((g) => same[g]) })
        const retry = []
        results.forEach((result, i) => {
          const g = pending[i]
          if (result.learned) learn(sent[g], result.learned)
          if (result.inserted) { inserted.push(...result.inserted); return }
          const stored = findBodies(result.duplicates)
          const records = new Map(groups[g].map((r) => [r.id, r]))
          for (const id of result.duplicates) {
            const row = stored.get(id)
            if (row && row.body !== records.get(id).body && !sameStatement(row.body, records.get(id))) { failed.set(g, id); return }
          }
          same[g].push(...result.duplicates.filter((id) => stored.has(id)))
          retry.push(g)
        })
        pending = retry
      }
      return { failed, inserted }
    },

    // Statements with the `stored` each record carries (import); returns the
    // ids that were stored already.
    async insertStored (records, { forwardTo = null } = {}) {
      return writer.call('insertStored', records.map((r) => forWriter(r, knownTerms, r.stored.getTime(), forwardTo)))
    },

    async restamp (ids, stored) {
      if (ids.length) await writer.call('restamp', ids, { storedMs: stored.getTime() })
    },

    async findOne (id, { voided, authorityKey }) {
      const r = byId.get({ id: idToBlob(id), voided: voided ? 1 : 0 })
      if (!r) return null
      if (authorityKey && r.authority !== termIn(storeOf(id), termId(agentTerm('u', authorityKey)))) return null
      return toRow(r)
    },

    async findBodies (ids) {
      return findBodies(ids)
    },

    findReferencedIds,
    findIdsReferencing,
    findReferencingIds,

    // One writer gives seqs in commit order: a reader that goes on after
    // the last position it read misses nothing committed later, with no
    // margin (the live feed, src/feed/).
    // Positions of two rows compared in stored order (seq follows stored).
    order: { visibleInStoredOrder: true, compare: (a, b) => Number(a.position) - Number(b.position) },

    async query (q, { deadline = Infinity } = {}) {
      const orSeqs = seqsOf(q.orIds)
      const inStore = storeTermReader(termId, q.store)
      const shared = { termId: inStore, lastSeqAt, orSeqs, defaultFrom: defaultFrom() }
      const first = statementSeqQuery(q, shared)
      if (!first) return []
      if (first.driver === null) return rowsBySeq(prepared(first.sql, { pluck: true }).all(first.params))
      const seqs = []
      let { low, high } = first.bounds
      for (;;) {
        // The window: the next WINDOW_POSTINGS postings of the driving term.
        const edge = windowEdge[q.ascending ? 'ASC' : 'DESC'].get(...termRange(first.driver, low ?? 0, high ?? Number.MAX_SAFE_INTEGER), 1, WINDOW_POSTINGS)
        const within = edge === undefined ? {} : q.ascending ? { high: edge - 1 } : { low: edge + 1 }
        // since and until are in the first query's bounds already: not
        // looked up again for each window
        const query = statementSeqQuery({ ...q, since: null, until: null, limit: q.limit - seqs.length }, { ...shared, within: { low: low ?? undefined, high: high ?? undefined, ...within } })
        seqs.push(...prepared(query.sql, { pluck: true }).all(query.params))
        if (seqs.length >= q.limit || edge === undefined) break
        if (q.ascending) low = edge
        else high = edge
        if (Date.now() > deadline) throw errors.QueryTimeout()
        await new Promise((resolve) => setImmediate(resolve))
      }
      return rowsBySeq(seqs)
    },

    // Statements in which an agent appears (as a related agent, authority
    // included, voided or not), in seq order after `after` (agent erasure).
    // Walks the agent's terms one after the other (each in index order), so
    // a position is "<term number>:<seq>"; a statement under two terms
    // comes twice.
    async findByAgent (agent, { after = null, limit, store = 0 }) {
      const terms = agentTerms(agent, true).map(storeTermReader(termId, store))
      let [k, seq] = after === null ? [0, -1] : after.split(':').map(Number)
      for (; k < terms.length; k++, seq = -1) {
        if (terms[k] === undefined) continue
        const seqs = postings.ASC.all(...termRange(terms[k], seq + 1, Number.MAX_SAFE_INTEGER), limit)
        if (seqs.length) {
          const at = k
          return rowsBySeq(seqs).map((r) => ({ ...r, position: `${at}:${r.position}` }))
        }
      }
      return []
    },

    erase: (ids) => writer.call('statementsErase', ids),

    // Every statement (voided ones too, each row's `voided` says) stored
    // after `since` and at or before `until`, in stored order, from the
    // keyset position `after` (export, retention, delete by range).
    // `store`: its number (0, the default store).
    // A store's statements are its store term's rows, as for an unfiltered
    // query (store-terms.js): walking the table instead read every other
    // store's rows in the range, each retention slice from the start again.
    async scan ({ since = null, until = null, after = null, limit, store = 0 }) {
      const low = Math.max(after === null ? -1 : Number(after), since === null ? -1 : lastSeqAt(since.getTime())) // exclusive
      const high = until === null ? Number.MAX_SAFE_INTEGER : lastSeqAt(until.getTime())
      const storeTerm = termId(STORE_TERM)
      const termRows = (term, from, n) => term === undefined || n <= 0 || from >= high ? [] : rowsBySeq(postings.ASC.all(...termRange(term, from + 1, high), n), { voided: true })
      if (store) return termRows(termIn(store, storeTerm), low, limit)
      // the default store: the table up to the last seq before it had the term, its term's rows after
      const from = defaultFrom()
      const rows = scanRows.all(low, from === null ? high : Math.min(high, from), limit).map(toRow)
      return from === null ? rows : [...rows, ...termRows(storeTerm, Math.max(low, from), limit - rows.length)]
    },

    // Counts for GET /admin/overview from the hourly counters (schema.js):
    // whole hours, from the one `since` falls in to the one `until` falls
    // in. `authorityKeys`: the authorities it can name (others are null).
    async aggregate ({ since, until, authorityKeys = [], top = 10, store = 0 }) {
      const from = Math.floor(since.getTime() / HOUR_MS)
      const to = Math.floor(until.getTime() / HOUR_MS)
      // Per hour: a store's from its store term (store-terms.js); the
      // default store's are the whole LRS's less every other store's.
      const perHour = new Map(store ? [] : hourTotals.all(from, to).map((r) => [r.hour, r.count]))
      for (const term of storeTermIds(store)) {
        for (const { hour, count } of termCounts.all(term, from, to)) perHour.set(hour, (perHour.get(hour) || 0) + (store ? count : -count))
      }
      const hours = []
      for (let h = from; h <= to; h++) hours.push({ start: new Date(h * HOUR_MS), count: perHour.get(h) || 0 })
      const verbs = []
      const activities = []
      const byHash = new Map(authorityKeys.map((key) => [hashedAgent(key), key]))
      const authorities = new Map()
      for (const { id, count } of hourTerms.all(from, to)) {
        if (storeOfTermId(id) !== store) continue
        const term = termString.get(plainTermId(id))
        const name = term.slice(2)
        if (term.startsWith('v:')) verbs.push({ verb: name, count })
        else if (term.startsWith('o:')) activities.push({ activity: name, count })
        else if (term.startsWith('u:')) {
          const key = byHash.get(name) ?? null
          authorities.set(key, (authorities.get(key) || 0) + count)
        }
      }
      const topOf = (list) => list.sort((a, b) => b.count - a.count).slice(0, top)
      return {
        total: storedIn(store),
        hours,
        verbs: topOf(verbs),
        activities: topOf(activities),
        authorities: [...authorities].map(([authorityKey, count]) => ({ authorityKey, count })).sort((a, b) => b.count - a.count)
      }
    },

    // Statements stored in a store (voided ones too), from the counters.
    async count ({ store = 0 } = {}) {
      return storedIn(store)
    },

    // The plans SQLite chooses for a query and its window edges (tests
    // check every shape is served by an index in order, with no sort of
    // its own).
    explainQuery (q) {
      const query = statementSeqQuery(q, { termId: storeTermReader(termId, q.store), lastSeqAt, defaultFrom: defaultFrom() })
      if (!query) return []
      const plan = (sql, params) => db.prepare('EXPLAIN QUERY PLAN ' + sql).all(params).map((r) => r.detail)
      const edge = query.driver === null ? [] : plan(postingsSql(q.ascending ? 'ASC' : 'DESC', { offset: true }), [...termRange(query.driver, 0, Number.MAX_SAFE_INTEGER), 1, WINDOW_POSTINGS])
      return [...plan(query.sql, query.params), ...edge]
    }
  }
}

module.exports = { statementsRepository }
