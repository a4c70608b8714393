'use strict'

// The writes that take statements away: statementsErase (an agent's
// erasure, a store's retention, an admin's deletion of statements by id)
// and storePurgeSlice (a deleted store's data, a slice at a time, driven
// by writer-loop.js). Apart because taking away is not storing backwards:
// each statement's index rows go in every level of both files (journaled,
// write-index-journal.js), its hourly counts go down, its forwarding
// entries and the attachments no one uses any more go with it, and a
// purge runs in slices against a deadline.

const { termReader } = require('./terms')
const { storeSuffix } = require('./ids')
const { termIn, STORE_SPAN, STORE_TERM } = require('./store-terms')
const { qualify, prefixBounds } = require('../../stores/store-keys')
const { storedMsOf } = require('./seq')
const { LEVELS, DICT_TABLES, TERM_TABLES } = require('./schema')
const { dropStoreForwarding } = require('./write-forwarding')
const { rowFacts } = require('./report-rollups')

// The first seqs of a term (a store's store term) in every level, in order.
const STORE_SEQS = `${TERM_TABLES.map((table) => `SELECT seq FROM ${table} WHERE term = ?`).join(' UNION ')} ORDER BY 1 LIMIT ?`

// The phases of a deleted store's purge (storePurgeSlice), a slice at a time:
//   statements  up to `limit` of them, the first by seq of the store term
//               (store-terms.js), with their hourly count (the store
//               term's and the LRS total's) and forwarding entries, and
//               their term rows: every row of each of their terms not
//               purged before (a term id of the store is the store's
//               alone, so all its rows go at once, a range of the index
//               rather than a row per statement and level) and the store
//               term's up to the last of them
//   documents, attachments   `limit` rows at a time
//   ids         each id level scanned in key order for the store's ids
//               (the last 4 bytes of a store's ids are its number,
//               ids.js), which go: a scan of 10 M rows costs less than a
//               look-up of a million ids in every level
//   counts      the store's other hourly counts, a week of hours at a time
//   the end     its pending flags; marked purged
// `state`: { terms (purged, or being: `heavy`, those with more rows
// than a slice takes at once, also kept in stores.purge_terms, which a
// stop would otherwise leave behind), level and after (the id scan),
// hour (the counts') }.
const ID_SCAN_ROWS = 1024
const COUNT_HOURS = 24 * 7
const OF_STORE = 'length(id) = 20 AND substr(id, 17) = @suffix' // an id of the store (ids.js)

function deletionWrites (ctx) {
  const { db, counts, storedSeqs, countInLevel, levelOfTable, index } = ctx

  // Removes the statements at `seqs`: their rows, their index rows in
  // every level (journaled, as the index file commits after the database
  // file), their hourly counts and their forwarding entries (queued and
  // dead). Returns the counts and the hashes of their attachments.
  const findStatement = db.prepare('SELECT seq, id, term_ids, attachments, stored_ms FROM statements WHERE seq = ?')
  // with what the reports' rollups count it by (report-rollups.js, rowFacts)
  const findRemoved = db.prepare('SELECT seq, id, term_ids, attachments, stored_ms, ts, store, verb, voided, body FROM statements WHERE seq = ?')
  const removeStatement = db.prepare('DELETE FROM statements WHERE seq = ?')
  const forwardUpstreams = db.prepare('SELECT DISTINCT upstream FROM forward_outbox UNION SELECT DISTINCT upstream FROM forward_dead_letters').pluck()
  const removeQueued = db.prepare('DELETE FROM forward_outbox WHERE upstream = ? AND statement_id = ?')
  const removeDead = db.prepare('DELETE FROM forward_dead_letters WHERE upstream = ? AND statement_id = ?')
  // A statement's forwarding entries, queued and dead, for `upstreams`; how many.
  function removeForwarding (upstreams, id) {
    let n = 0
    for (const u of upstreams) n += removeQueued.run(u, id).changes + removeDead.run(u, id).changes
    return n
  }
  function removeStatements (seqs) {
    const upstreams = seqs.length ? forwardUpstreams.all() : []
    const removed = { statements: 0, forwardingEntries: 0, hashes: new Set() }
    counts.clear()
    for (const at of seqs) {
      const row = findRemoved.get(at)
      if (!row) continue
      const termIds = JSON.parse(row.term_ids)
      index.journaled({ seq: row.seq, toSeq: null, id: row.id, terms: termIds })
      counts.add(row.stored_ms ?? storedMsOf(row.seq), termIds, null, -1)
      if (row.voided === 0) counts.roll(rowFacts(row, readTerm), -1) // a voided one was taken out when voided
      removeStatement.run(row.seq)
      removed.statements++
      if (row.attachments) for (const h of JSON.parse(row.attachments)) removed.hashes.add(h)
      removed.forwardingEntries += removeForwarding(upstreams, row.id)
    }
    counts.flush()
    return removed
  }
  const attachmentUsed = db.prepare('SELECT 1 FROM statements WHERE attachments IS NOT NULL AND instr(attachments, ?) > 0 LIMIT 1').pluck()
  const removeAttachment = db.prepare('DELETE FROM attachments WHERE sha2 = ?')
  function removeUnusedAttachments (hashes) {
    let n = 0
    for (const h of hashes) if (!attachmentUsed.get(JSON.stringify(h))) n += removeAttachment.run(h).changes
    return n
  }
  const readTerm = termReader(db, { dictTables: DICT_TABLES })

  // the id that ends the next ID_SCAN_ROWS of a level (undefined: fewer are
  // left), and the store's ids up to it (or to the end) in one statement:
  // a delete of each id found cost a statement and a seek per row
  const idScanEnds = LEVELS.map((level) => db.prepare(`SELECT id FROM ${level.ids} WHERE id > ? ORDER BY id LIMIT 1 OFFSET ${ID_SCAN_ROWS - 1}`).pluck())
  const idRangeRemoves = LEVELS.map((level) => db.prepare(`DELETE FROM ${level.ids} WHERE id > @after AND id <= @end AND ${OF_STORE}`))
  const idTailRemoves = LEVELS.map((level) => db.prepare(`DELETE FROM ${level.ids} WHERE id > @after AND ${OF_STORE}`))
  const hourRange = db.prepare('SELECT min(hour) AS low, max(hour) AS high FROM hourly_terms')
  const removeStoreCounts = db.prepare(`DELETE FROM hourly_terms WHERE hour BETWEEN ? AND ? AND term < 0 AND (-term) % ${STORE_SPAN} = ?`)
  const savePurgeTerms = db.prepare('UPDATE stores SET purge_terms = ? WHERE number = ?')
  const storeSeqs = db.prepare(STORE_SEQS).pluck()
  function storePurge (number, store, { limit, deadline, graceMs }, state) {
    const out = { statements: 0, documents: 0, attachments: 0, done: false }
    state.terms = state.terms || new Set()
    state.heavy = state.heavy || JSON.parse(store.purge_terms || '[]')
    const storeTerm = termIn(number, readTerm(STORE_TERM))
    const seqs = storeTerm === undefined ? [] : storeSeqs.all(...TERM_TABLES.map(() => storeTerm), limit)
    if (seqs.length || state.heavy.length) {
      const change = { terms: [], rows: [], storeTerm, upTo: null }
      const heavyBefore = state.heavy.length
      if (seqs.length) purgeStatements(seqs, state, change, out, deadline)
      // the terms with rows left, a slice's worth at a time, while there is time
      while (state.heavy.length && performance.now() < deadline) {
        if (!index.removeTermRows(state.heavy[0], change)) state.heavy.shift()
      }
      index.journalPurge(change)
      if (state.heavy.length || heavyBefore) savePurgeTerms.run(state.heavy.length ? JSON.stringify(state.heavy) : null, number)
      state.level = 0 // a late write's ids: scanned for again
      state.after = null
      state.hour = null
      return out
    }
    out.documents = db.prepare('DELETE FROM documents WHERE key IN (SELECT key FROM documents WHERE store = ? LIMIT ?)').run(number, limit).changes
    out.attachments = db.prepare('DELETE FROM attachments WHERE sha2 IN (SELECT sha2 FROM attachments WHERE sha2 > ? AND sha2 < ? LIMIT ?)').run(...prefixBounds(qualify(number, '')), limit).changes
    if (out.documents || out.attachments) return out
    const suffix = storeSuffix(number)
    state.level = state.level || 0
    while (state.level < LEVELS.length) {
      if (performance.now() > deadline) return out
      const after = state.after || Buffer.alloc(0)
      const end = idScanEnds[state.level].get(after)
      const removed = end === undefined
        ? idTailRemoves[state.level].run({ after, suffix }).changes
        : idRangeRemoves[state.level].run({ after, end, suffix }).changes
      countInLevel(levelOfTable(state.level), -removed)
      if (end === undefined) {
        state.level++
        state.after = null
      } else state.after = end
    }
    const hours = hourRange.get()
    if (state.hour === null || state.hour === undefined) state.hour = hours.low ?? 0
    while (hours.high !== null && state.hour <= hours.high) {
      if (performance.now() > deadline) return out
      removeStoreCounts.run(state.hour, state.hour + COUNT_HOURS - 1, number)
      state.hour += COUNT_HOURS
    }
    db.prepare(`DELETE FROM pending_flags WHERE ${OF_STORE}`).run({ suffix })
    if (Date.now() - store.deleted_at < graceMs) {
      out.waiting = true
      return out
    }
    dropStoreForwarding(db, number) // entries a worker that had not heard of the deletion yet queued
    db.prepare('UPDATE stores SET purged_at = ? WHERE number = ?').run(Date.now(), number)
    out.done = true
    return out
  }

  // The statements at `seqs` (in order), and their terms' rows
  // (removeTermRows); those of the terms met past `deadline` are left to
  // the next slices (state.heavy, kept).
  function purgeStatements (seqs, state, change, out, deadline) {
    const upstreams = forwardUpstreams.all()
    const terms = []
    counts.clear()
    for (const at of seqs) {
      change.upTo = at
      const row = findStatement.get(at)
      if (!row) continue // gone already (a slice whose index file part a stop cut short)
      // the store term's count and the total; its other counts go in the counts phase
      counts.add(row.stored_ms ?? storedMsOf(row.seq), [change.storeTerm], [STORE_TERM], -1)
      removeStatement.run(row.seq)
      out.statements++
      for (const term of JSON.parse(row.term_ids)) {
        if (term === change.storeTerm || state.terms.has(term)) continue
        state.terms.add(term)
        terms.push(term)
      }
      removeForwarding(upstreams, row.id)
    }
    counts.flush()
    terms.sort((a, b) => a - b) // in key order: each delete finds the pages the one before read
    const heavy = new Set(state.heavy)
    for (const term of terms) {
      if (heavy.has(term)) continue
      if (performance.now() > deadline || index.removeTermRows(term, change)) {
        state.heavy.push(term)
        heavy.add(term)
      }
    }
    index.removeTermUpTo(change.storeTerm, change.upTo)
  }

  return {
    // Agent erasure: the statements, their terms, their forwarding entries
    // (queued and dead) and the attachments no remaining statement uses.
    statementsErase (ids) {
      const removed = removeStatements([...storedSeqs(ids).values()])
      removed.attachments = removeUnusedAttachments(removed.hashes)
      delete removed.hashes
      return removed
    },

    // One slice of a deleted store's purge (writer-loop.js), of the first
    // of its phases with something left (purge-phases in storePurge above):
    // its statements, its documents and attachments, its ids, its hourly
    // counts. `state`: where the phases have got, kept by the caller for
    // the store's purge (after a restart every phase starts again, finding
    // gone what went). Once every phase finds nothing, and `graceMs` have
    // passed since the deletion (a worker that had not heard of it yet may
    // have written a last request meanwhile), the store is marked purged.
    // `limit`: statements at most; `budgetMs`: the scans stop after that
    // long. Returns what it removed, whether the store is purged, and
    // whether only the wait is left (`waiting`).
    storePurgeSlice ({ number, limit, budgetMs = Infinity, graceMs }, state = {}) {
      const store = db.prepare('SELECT deleted_at, purge_terms FROM stores WHERE number = ? AND deleted_at IS NOT NULL AND purged_at IS NULL').get(number)
      if (!store) return { statements: 0, documents: 0, attachments: 0, done: true }
      return storePurge(number, store, { limit, deadline: performance.now() + budgetMs, graceMs }, state)
    }
  }
}

module.exports = { deletionWrites }
