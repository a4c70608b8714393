'use strict'

// The writes that store statements: storeBatch (what requests send),
// insertStored (statements that keep their `stored`: an import, a store
// moved from elsewhere), restamp (Consistent-Through), and the attachments
// that come with them. Apart because they are the writer's hot path: each
// statement's row, its ids in the recent buffer, its (term, seq) rows, its
// hourly counts, its outbox entries and the flags of the statements it
// references are written here, and what is measured per statement is
// measured in this file.

const { idToBlob } = require('./ids')
const { termIn, STORE_TERM } = require('./store-terms')
const { firstSeqOf, lastSeqOf, storedMsOf } = require('./seq')
const { RECENT_BUFFERS } = require('./schema')
const { rowFacts, HOUR_MS } = require('./report-rollups')

// Inserts that write more than one row (the statement's with its trigger,
// schema.js; the (term, seq) rows, many to a statement) and may fail
// half-way on a constraint open a statement journal in SQLite, which
// copies every page they touch first (16 KiB each) to undo them. OR
// IGNORE cannot fail half-way, so it needs none: measured, a loop of these
// inserts went from 25.8 to 23.2 us of CPU per statement. A (term, seq)
// row is there once whatever happens; a statement row that is not written
// is an error (insertRecord).

function statementWrites (ctx) {
  const { db, terms, counts, storedIds, seqOf, storedSeqs, nextSeq, insertOutbox, insertTermRows, noRows } = ctx
  const insertStatement = db.prepare(`INSERT OR IGNORE INTO statements
    (seq, id, voiding, ts, verb, registration, authority, ref, term_ids, attachments, body, stored_ms, store)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const insertIds = RECENT_BUFFERS.map((buffer) => db.prepare(`INSERT INTO ${buffer.ids} (id, seq) VALUES (?, ?)`))
  const rowAt = db.prepare('SELECT seq, ts, stored_ms, store, verb, voided, body FROM statements WHERE seq = ?')
  const voidedAt = db.prepare('SELECT voided FROM statements WHERE seq = ?').pluck()
  const anyPendingVoid = db.prepare('SELECT EXISTS (SELECT 1 FROM pending_flags WHERE voided = 1)').pluck()
  // A target's voiding (not a voiding statement's, nor twice) takes it out of the rollups.
  const voidTarget = db.prepare('UPDATE statements SET voided = 1 WHERE seq = ? AND voided = 0 AND voiding = 0')
  // Whether a statement stored now may be voided already (its voiding came
  // first, pending_flags and the insert trigger): looked at per statement
  // only while such a voiding waits, which is rare.
  let pendingVoids = false

  // The ids of `records` stored already or earlier in `records`, in order
  // (`blobs`: their ids as stored). An id the LRS has just made (`newId`)
  // is not looked up.
  function takenIds (records, blobs) {
    const seen = new Set()
    const taken = []
    records.forEach((r, i) => {
      if (seen.has(r.id) || (!r.newId && seqOf(blobs[i]) !== undefined)) taken.push(r.id)
      seen.add(r.id)
    })
    return taken
  }

  // What a statement being stored counts under in the reports' rollups
  // (report-rollups.js): its timestamp's hour, verb, object activity and
  // learner, as the worker sent them (statements.js, forWriter).
  function factsOf (r, t, storedMs) {
    return {
      store: r.store || 0,
      hour: Math.floor((r.timestampFromStored || r.timestampMs == null ? storedMs : r.timestampMs) / HOUR_MS),
      verb: t.verb,
      object: r.objectAt >= 0 ? t.plain[r.objectAt] : 0,
      learner: r.learner == null ? 0 : terms.id(r.learner),
      groupings: r.groupings && r.groupings.map(terms.id),
      funnel: r.funnel
    }
  }

  // Data 2.3.2 and Communication 2.1.4: flags on targets stored, or pending
  // until they are (schema.js: the insert trigger takes them).
  function applyReferences (records) {
    const refs = [...new Set(records.filter((r) => r.ref).map((r) => r.ref))]
    if (!refs.length) return
    const voids = new Set(records.filter((r) => r.voiding).map((r) => r.ref))
    const existing = storedSeqs(refs)
    const mark = db.prepare('UPDATE statements SET referenced = 1, voided = voided OR (? AND NOT voiding) WHERE seq = ?')
    const pend = db.prepare(`INSERT INTO pending_flags (id, voided, referenced) VALUES (?, ?, 1)
      ON CONFLICT (id) DO UPDATE SET voided = voided OR excluded.voided, referenced = 1`)
    for (const id of refs) {
      const voided = voids.has(id) ? 1 : 0
      if (existing.has(id)) {
        const seq = existing.get(id)
        if (voided && voidTarget.run(seq).changes === 1) counts.roll(rowFacts(rowAt.get(seq), terms.id), -1)
        mark.run(voided, seq)
      } else pend.run(idToBlob(id), voided)
    }
  }

  // The term ids of a record (a term the worker knew comes as its id). A
  // term made by an operation whose savepoint is undone is forgotten with
  // it (dropFrom). The verb, authority and registration are the first of
  // `all` (terms.js).
  // A statement of a store but the default one has its store's term ids
  // (store-terms.js) but for its verb, a check on rows of the store already;
  // `plain`, the dictionary's, are what the worker learns.
  // A default store's statement has the store term (plain) once other
  // stores exist (store-terms.js), after the terms the worker sent.
  function termIdsOf (record) {
    const t = record.terms
    const plain = t.all.map(terms.id)
    const all = record.store ? plain.map((id) => termIn(record.store, id)) : ctx.defaultTermFrom === null ? plain : [...plain, terms.id(STORE_TERM)]
    return { all, plain, verb: plain[0], authority: all[1], registration: t.registration ? all[2] : null }
  }

  // The ids of the terms the worker sent as strings, in the order it sent
  // them: it keeps them and sends the ids from then on (statements.js,
  // forWriter). They reach it only once the transaction has committed.
  function idsOfStrings (records, ids) {
    const out = []
    records.forEach((r, i) => r.terms.all.forEach((term, k) => { if (typeof term === 'string') out.push(ids[i].plain[k]) }))
    ctx.stringTerms += out.length
    return out
  }

  // Inserts one statement, whose id is not taken, at `seq` with its outbox
  // entries, adding its (term, seq) rows to `pairs` ({ terms, seqs, verbs }).
  // `id`: its id as stored. `storedMs`: its stored time when `seq` is not
  // in that millisecond. (term_ids is JSON of whole numbers: joined.)
  function insertRecord (r, t, seq, { id, now, pairs, storedMs = null }) {
    const { changes } = insertStatement.run(seq, id, r.voiding ? 1 : 0, r.timestampFromStored ? 1 : 0, t.verb, t.registration || null, t.authority,
      r.ref ? idToBlob(r.ref) : null, '[' + t.all.join(',') + ']', r.attachments.length ? JSON.stringify(r.attachments) : null, r.body, storedMs, r.store || null)
    if (changes !== 1) throw new Error(`statement ${r.id} was not stored at seq ${seq}`) // OR IGNORE: a taken seq, a missing column
    insertIds[ctx.active].run(id, seq)
    storedIds.add(id)
    const at = storedMs ?? storedMsOf(seq)
    counts.add(at, t.all, r.terms.all, 1)
    if (!pendingVoids || voidedAt.get(seq) === 0) counts.roll(factsOf(r, t, at), 1, Math.floor(at / HOUR_MS))
    for (const term of t.all) {
      pairs.terms.push(term)
      pairs.seqs.push(seq)
      pairs.verbs.push(t.verb)
    }
    if (r.upstreams) for (const upstream of r.upstreams) insertOutbox.run(upstream, id, now) // decided by the worker (statements.js, forWriter)
  }

  // Where the last statement of a full millisecond went (insertStored), so
  // that the next one does not look at every full one after it again: a
  // file of a million statements without stored would make a million
  // searches through up to 500 milliseconds. Only a hint: a millisecond
  // it skips was full then, and a later place is still a right one.
  const spilledTo = new Map()
  function rememberSpill (from, to) {
    if (spilledTo.size >= 10000) spilledTo.clear()
    spilledTo.set(from, to)
  }

  return {
    // A group (request) whose ids are taken is reported with them and
    // stores nothing; its statements known to be stored already
    // (`same[g]`) are skipped. Its ids are looked up before anything of it
    // is written: this writer holds the write lock, so what is not stored
    // now (nor earlier in the group) cannot be taken by the time it is
    // inserted. (A savepoint per group, undone on a taken id, copied every
    // page the group touched, 16 KiB each, into the statement journal:
    // measured, about 1 us of the writer's 40 per statement.)
    storeBatch (groups, { storedMs, same }) {
      const termIds = groups.map((records) => records.map(termIdsOf))
      const learned = groups.map((records, g) => idsOfStrings(records, termIds[g]))
      let seq = nextSeq(storedMs)
      const now = Date.now()
      counts.clear()
      pendingVoids = anyPendingVoid.get() === 1
      const results = groups.map((records, g) => {
        const skip = new Set(same[g] || [])
        const keptAt = []
        records.forEach((r, i) => { if (!skip.has(r.id)) keptAt.push(i) })
        const kept = keptAt.map((i) => records[i])
        const blobs = kept.map((r) => idToBlob(r.id))
        const duplicates = takenIds(kept, blobs)
        if (duplicates.length) return { duplicates, learned: learned[g] }
        keptAt.forEach((i, k) => insertRecord(records[i], termIds[g][i], seq++, { id: blobs[k], now, pairs: ctx.pending }))
        applyReferences(kept)
        return { inserted: kept.map((r) => r.id), learned: learned[g] }
      })
      counts.keep()
      return results
    },

    // Statements that keep the `stored` they have (a store moved from
    // elsewhere): each takes the next free seq of its stored ms. Ids already
    // stored are left as they are and returned. A millisecond holds 2,048
    // statements (seq.js), and an LRS that stored a larger batch at one
    // time gave all of it one `stored` (so does an import of statements
    // without one): the rest take the free seqs of the next milliseconds
    // and keep their own stored in stored_ms. In a file in stored order
    // (as exports are) they come right after their millisecond, before
    // the next one's statements, so order and since/until stay exact
    // (statements.js, lastSeqAt).
    insertStored (records) {
      const slot = db.prepare('SELECT max(seq) FROM statements WHERE seq BETWEEN ? AND ?').pluck()
      const existing = new Set()
      const pairs = noRows()
      const now = Date.now()
      counts.clear()
      pendingVoids = anyPendingVoid.get() === 1
      for (const r of records) {
        let ms = spilledTo.get(r.storedMs) ?? r.storedMs
        let taken = slot.get(firstSeqOf(ms), lastSeqOf(ms))
        while (taken === lastSeqOf(ms)) taken = slot.get(firstSeqOf(++ms), lastSeqOf(ms))
        if (ms !== r.storedMs) rememberSpill(r.storedMs, ms)
        const seq = taken === null ? firstSeqOf(ms) : taken + 1
        const id = idToBlob(r.id)
        if (seqOf(id) !== undefined) existing.add(r.id)
        else insertRecord(r, termIdsOf(r), seq, { id, now, pairs, storedMs: ms === r.storedMs ? null : r.storedMs })
      }
      insertTermRows(pairs)
      applyReferences(records.filter((r) => !existing.has(r.id)))
      counts.flush()
      return [...existing]
    },

    // Moves statements to a later stored time (Consistent-Through, see write-batch.js).
    restamp (ids, { storedMs }) {
      let seq = nextSeq(storedMs)
      const find = db.prepare('SELECT seq, term_ids, stored_ms, store, verb, ts, voided, body FROM statements WHERE seq = ?')
      const move = db.prepare('UPDATE statements SET seq = ? WHERE seq = ?')
      const setTermIds = db.prepare('UPDATE statements SET term_ids = ? WHERE seq = ?')
      counts.clear()
      for (const [id, at] of storedSeqs(ids)) {
        const row = find.get(at)
        move.run(seq, row.seq)
        let termIds = JSON.parse(row.term_ids)
        ctx.index.journaled({ seq: row.seq, toSeq: seq, id: idToBlob(id), terms: termIds })
        const from = row.stored_ms ?? storedMsOf(row.seq)
        const to = row.stored_ms ?? storedMsOf(seq)
        counts.add(from, termIds, null, -1)
        // in the rollups, its new stored hour holds its timestamp; a
        // statement whose timestamp is its stored time moves there too
        const facts = row.voided === 0 ? rowFacts(row, terms.id, to) : null
        if (facts && row.ts === 1) counts.roll({ ...facts, hour: Math.floor(from / HOUR_MS) }, -1)
        // a default store's statement moved past DEFAULT_TERM_FROM is found by the store term (store-terms.js)
        const storeTerm = row.store === null && ctx.defaultTermFrom !== null ? terms.id(STORE_TERM) : null
        if (storeTerm !== null && !termIds.includes(storeTerm)) {
          termIds = [...termIds, storeTerm]
          setTermIds.run('[' + termIds.join(',') + ']', seq)
          ctx.pending.terms.push(storeTerm)
          ctx.pending.seqs.push(seq)
          ctx.pending.verbs.push(row.verb)
        }
        counts.add(to, termIds, null, 1)
        if (facts) counts.roll(facts, row.ts === 1 ? 1 : 0, Math.floor(to / HOUR_MS))
        seq++
      }
      counts.flush()
    },

    // A statement request's attachments, saved before its statements (attachments.js).
    attachmentsSave (attachments) {
      const insert = db.prepare('INSERT INTO attachments (sha2, content_type, length, content) VALUES (?, ?, ?, ?) ON CONFLICT (sha2) DO NOTHING')
      for (const a of attachments) insert.run(a.sha2, a.contentType, a.body.length, a.body)
    }
  }
}

module.exports = { statementWrites }
