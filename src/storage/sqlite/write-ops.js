'use strict'

// Every write the SQLite engine makes, as functions of (args) run by the
// writer thread inside a transaction (writer-thread.js). Arguments and
// results are plain values (they cross threads).

const { termWriter, termReader } = require('./terms')
const { idFilter } = require('./id-filter')
const { indexMerges } = require('./index-merges')
const { idToBlob, blobToId, storeSuffix } = require('./ids')
const { termIn, plainTermId, STORE_SPAN, STORE_TERM, DEFAULT_TERM_FROM, defaultTermFromReader } = require('./store-terms')
const { qualify, deletedId, prefixBounds } = require('../../stores/store-keys')
const { storeUpstreamPrefix } = require('../../forwarding/upstreams')
const { mergeNote } = require('../../forwarding/delivery-state')
const { FORWARD_STATE } = require('./outbox')
const { firstSeqOf, lastSeqOf, storedMsOf } = require('./seq')
const { LEVELS, RECENT_BUFFERS, DICT_TABLES, TERM_TABLES, SEQ_OF_ID, HOUR_MS, COUNTED_KINDS } = require('./schema')

// The first seqs of a term (a store's store term) in every level, in order.
const STORE_SEQS = `${TERM_TABLES.map((table) => `SELECT seq FROM ${table} WHERE term = ?`).join(' UNION ')} ORDER BY 1 LIMIT ?`

const PAIRS_PER_INSERT = 100

// Inserts that write more than one row (the statement's with its trigger,
// schema.js; the (term, seq) rows, many to a statement) and may fail
// half-way on a constraint open a statement journal in SQLite, which
// copies every page they touch first (16 KiB each) to undo them. OR
// IGNORE cannot fail half-way, so it needs none: measured, a loop of these
// inserts went from 25.8 to 23.2 us of CPU per statement. A (term, seq)
// row is there once whatever happens; a statement row that is not written
// is an error (insertRecord).

// [term, seq, term, seq, ...] in (term, seq) order.
function sortedRows (terms, seqs) {
  const seqAt = Float64Array.from(new Set(seqs)).sort()
  const ranks = seqAt.length
  let largest = 0 // in size: a store's term ids are negative (store-terms.js)
  for (const term of terms) if (Math.abs(term) > largest) largest = Math.abs(term)
  if ((largest + 1) * ranks > Number.MAX_SAFE_INTEGER) { // never with real term ids; still right
    return terms.map((term, i) => [term, seqs[i]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).flat()
  }
  const rankOf = new Map()
  seqAt.forEach((seq, rank) => rankOf.set(seq, rank))
  const keys = new Float64Array(terms.length)
  for (let i = 0; i < terms.length; i++) keys[i] = terms[i] * ranks + rankOf.get(seqs[i])
  keys.sort()
  const rows = new Array(2 * keys.length)
  for (let i = 0; i < keys.length; i++) {
    const term = Math.floor(keys[i] / ranks)
    rows[2 * i] = term
    rows[2 * i + 1] = seqAt[keys[i] - term * ranks]
  }
  return rows
}

// (term, seq) rows to insert, one entry of each array per row; `verbs`:
// the verb of the row's statement (insertTermRows).
const noRows = () => ({ terms: [], seqs: [], verbs: [] })

const COUNTED = new Set(COUNTED_KINDS) // schema.js, hourly_terms
const TERM_KEY_SPAN = 2 ** 32

// Operations that leave the transaction's pending index rows and counts
// where they are (writeOps): storeBatch adds to them; a credential's last
// use comes with requests (once a minute per key and worker) and would
// otherwise split the transaction's one sort of its rows.
const LEAVES_PENDING = new Set(['storeBatch', 'credentialUsed', 'outboxNote'])

// The hourly counters, added to in memory while an operation runs and
// written at its end (a row per hour and term, not per statement).
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
    clear () {
      totals.clear()
      terms.clear()
    },
    flush: () => write(totals, terms),
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
    },
    flushKept: () => write(keptTotals, keptTerms),
    dropKept () {
      keptTotals.clear()
      keptTerms.clear()
    }
  }
}

function writeOps (db) {
  const terms = termWriter(db, { dictTables: DICT_TABLES, recentDicts: RECENT_BUFFERS.map((buffer) => buffer.dict), active: () => active })
  const lastSeq = db.prepare('SELECT max(seq) FROM statements').pluck()
  const insertStatement = db.prepare(`INSERT OR IGNORE INTO statements
    (seq, id, voiding, ts, verb, registration, authority, ref, term_ids, attachments, body, stored_ms, store)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const seqOfId = db.prepare(SEQ_OF_ID).pluck()
  const storedIds = idFilter(db)
  // the seq of the statement with `id` (as stored), or undefined
  const seqOf = (id) => storedIds.mayHave(id) ? seqOfId.get({ id }) : undefined
  const { recent, activeRecent, countInLevel, levelOfTable } = indexMerges(db)
  // Which recent buffer takes new index rows (schema.js, index_recent):
  // read in each transaction (`began`), since a writer beside this one (an
  // import, the threads of LRS_SQLITE_WRITER=thread) may have switched them.
  let active = activeRecent.get()
  // Whether the default store's statements get the store term (store-terms.js):
  // read in each transaction too, as another writer may have made the
  // first store.
  const readDefaultFrom = defaultTermFromReader(db)
  const writeDefaultTermFrom = db.prepare(`INSERT INTO settings (name, value) VALUES ('${DEFAULT_TERM_FROM}', ?) ON CONFLICT (name) DO NOTHING`)
  let defaultTermFrom = readDefaultFrom()
  const insertIds = RECENT_BUFFERS.map((buffer) => db.prepare(`INSERT INTO ${buffer.ids} (id, seq) VALUES (?, ?)`))
  const insertOutbox = db.prepare('INSERT INTO forward_outbox (upstream, statement_id, enqueued_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING')
  const pairInserts = RECENT_BUFFERS.map(() => new Map()) // by buffer, by number of parameters
  // The (term, seq) rows of the statements storeBatch stored in this
  // transaction, inserted once at its end (beforeCommit) in one sort:
  // measured against a sort and insert per request, 7 % less writer CPU per
  // statement and 6 % more statements/s (bench/writer-profile.js,
  // 150,000 statements, three alternations). Any other operation inserts
  // them first, so that it sees every row (restamp moves them, erasure
  // removes them), but for those in LEAVES_PENDING, which touch neither
  // them nor the counters.
  let pending = noRows()
  const counts = counters(db)
  const journal = db.prepare('INSERT INTO index_journal (seq, to_seq, id, term_ids) VALUES (?, ?, ?, ?)')

  // What an erasure (toSeq null) or a restamp changes in the index, for
  // one statement: made by the operation in every level, with an entry in
  // the journal (schema.js, index_journal), and made again from the journal
  // by replayJournal in the index file's levels only (the recent buffers'
  // part committed with the operation), inside a transaction that holds
  // the index file's write lock too; where it was done already, it changes
  // nothing.
  const indexChanges = LEVELS.map((level) => ({
    removeId: db.prepare(`DELETE FROM ${level.ids} WHERE id = ? AND seq = ?`),
    removeTerm: db.prepare(`DELETE FROM ${level.terms} WHERE term = ? AND seq = ?`),
    moveId: db.prepare(`UPDATE ${level.ids} SET seq = ? WHERE id = ? AND seq = ?`),
    moveTerm: db.prepare(`UPDATE ${level.terms} SET seq = ? WHERE term = ? AND seq = ?`)
  }))
  function changeIndex ({ seq, toSeq, id, terms }, fromLevel = 0) {
    indexChanges.forEach((change, i) => {
      if (i < fromLevel) return
      if (toSeq === null) {
        countInLevel(levelOfTable(i), -change.removeId.run(id, seq).changes)
        for (const term of terms) change.removeTerm.run(term, seq)
      } else {
        change.moveId.run(toSeq, id, seq)
        for (const term of terms) change.moveTerm.run(toSeq, term, seq)
      }
    })
  }
  function journaled (change) {
    journal.run(change.seq, change.toSeq, change.id, JSON.stringify(change.terms))
    changeIndex(change)
  }
  // What a slice of a deleted store's purge removes from the term index
  // (storePurgeSlice): `terms`, every row of each (terms of the store only,
  // store-terms.js: all of their rows go), in every level; `rows`, [level,
  // term, bound]: a term's rows in one level up to seq `bound` (null: all),
  // for terms with more rows than a slice takes at once
  // (TERM_ROWS_AT_ONCE); and the rows of the store term up to `upTo`. One
  // entry in the journal (its \`purge\` column) for the index file's part,
  // as above.
  const TERM_ROWS_AT_ONCE = 512
  const purgeChanges = LEVELS.map((level) => ({
    removeTerm: db.prepare(`DELETE FROM ${level.terms} WHERE term = ?`),
    removeTermUpTo: db.prepare(`DELETE FROM ${level.terms} WHERE term = ? AND seq <= ?`),
    nthRow: db.prepare(`SELECT seq FROM ${level.terms} WHERE term = ? ORDER BY seq LIMIT 1 OFFSET ${TERM_ROWS_AT_ONCE - 1}`).pluck()
  }))
  function removeTermRowsIn (level, term, bound) {
    if (bound === null) purgeChanges[level].removeTerm.run(term)
    else purgeChanges[level].removeTermUpTo.run(term, bound)
  }
  function purgeIndex ({ terms, rows, storeTerm, upTo }, fromLevel = 0) {
    purgeChanges.forEach((change, i) => {
      if (i < fromLevel) return
      for (const term of terms) change.removeTerm.run(term)
      if (upTo !== null) change.removeTermUpTo.run(storeTerm, upTo)
    })
    for (const [level, term, bound] of rows) if (level >= fromLevel) removeTermRowsIn(level, term, bound)
  }
  // Up to TERM_ROWS_AT_ONCE rows of `term` in each level, what went
  // recorded in `change`; true when rows of it are left.
  function removeTermRows (term, change) {
    const bounds = purgeChanges.map((c) => c.nthRow.get(term) ?? null)
    if (bounds.every((bound) => bound === null)) {
      change.terms.push(term)
      for (const c of purgeChanges) c.removeTerm.run(term)
      return false
    }
    bounds.forEach((bound, level) => {
      change.rows.push([level, term, bound])
      removeTermRowsIn(level, term, bound)
    })
    return true
  }
  const purgeJournal = db.prepare("INSERT INTO index_journal (seq, to_seq, id, term_ids, purge) VALUES (0, NULL, x'', '[]', ?)")
  const journalEntries = db.prepare('SELECT seq, to_seq, id, term_ids, purge FROM index_journal ORDER BY n')
  function replayJournal () {
    for (const e of journalEntries.all()) {
      if (e.purge === null) changeIndex({ seq: e.seq, toSeq: e.to_seq, id: e.id, terms: JSON.parse(e.term_ids) }, RECENT_BUFFERS.length)
      else purgeIndex(JSON.parse(e.purge), RECENT_BUFFERS.length)
    }
  }
  const clearJournalTo = db.prepare('DELETE FROM index_journal WHERE n <= ?')
  const lastJournalEntry = db.prepare('SELECT max(n) FROM index_journal').pluck()

  function nextSeq (storedMs) {
    return Math.max(firstSeqOf(storedMs), (lastSeq.get() || 0) + 1)
  }

  // (term, seq) rows in key order, about fifteen to a statement. They are
  // sorted as numbers, the term and the rank of the seq packed into one
  // double, rather than as [term, seq] pairs with a comparator: measured,
  // 1.6 against 9 ms per 1,000 statements, a tenth of the writer's time.
  // Each row carries its statement's verb (schema.js, the term tables).
  function insertTermRows ({ terms, seqs, verbs }) {
    const pairs = sortedRows(terms, seqs)
    const verbOf = new Map()
    for (let i = 0; i < seqs.length; i++) verbOf.set(seqs[i], verbs[i])
    for (let i = 0; i < pairs.length; i += 2 * PAIRS_PER_INSERT) {
      const end = Math.min(pairs.length, i + 2 * PAIRS_PER_INSERT)
      const params = new Array(((end - i) / 2) * 3)
      for (let k = i, j = 0; k < end; k += 2, j += 3) {
        params[j] = pairs[k]
        params[j + 1] = pairs[k + 1]
        params[j + 2] = verbOf.get(pairs[k + 1])
      }
      let insert = pairInserts[active].get(params.length)
      if (!insert) {
        insert = db.prepare(`INSERT OR IGNORE INTO ${RECENT_BUFFERS[active].terms} (term, seq, verb) VALUES ` + new Array(params.length / 3).fill('(?, ?, ?)').join(', '))
        pairInserts[active].set(params.length, insert)
      }
      insert.run(params)
    }
  }

  // id -> seq of those stored
  function storedSeqs (ids) {
    const found = new Map()
    for (const id of ids) {
      const seq = seqOf(idToBlob(id))
      if (seq !== undefined) found.set(id, seq)
    }
    return found
  }

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
      if (existing.has(id)) mark.run(voided, existing.get(id))
      else pend.run(idToBlob(id), voided)
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
    const all = record.store ? plain.map((id) => termIn(record.store, id)) : defaultTermFrom === null ? plain : [...plain, terms.id(STORE_TERM)]
    return { all, plain, verb: plain[0], authority: all[1], registration: t.registration ? all[2] : null }
  }

  // The ids of the terms the worker sent as strings, in the order it sent
  // them: it keeps them and sends the ids from then on (statements.js,
  // forWriter). They reach it only once the transaction has committed.
  let stringTerms = 0 // terms received as strings (writerStats)
  function idsOfStrings (records, ids) {
    const out = []
    records.forEach((r, i) => r.terms.all.forEach((term, k) => { if (typeof term === 'string') out.push(ids[i].plain[k]) }))
    stringTerms += out.length
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
    insertIds[active].run(id, seq)
    storedIds.add(id)
    counts.add(storedMs ?? storedMsOf(seq), t.all, r.terms.all, 1)
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

  // Removes up to `limit` dead letters of `upstreams` (ids), calling
  // `each(row)` for each before it goes; returns how many.
  function takeDeadLetters ({ upstreams, limit }, each = () => {}) {
    const select = db.prepare('SELECT upstream, statement_id FROM forward_dead_letters WHERE upstream = ? LIMIT ?')
    const rows = []
    for (const upstream of upstreams) rows.push(...select.all(upstream, limit - rows.length))
    const remove = db.prepare('DELETE FROM forward_dead_letters WHERE upstream = ? AND statement_id = ?')
    for (const r of rows) {
      each(r)
      remove.run(r.upstream, r.statement_id)
    }
    return rows.length
  }

  // A store's own upstreams' queued entries and dead letters (the LRS-wide
  // ones' go as the forwarder finds their statements gone).
  function dropStoreForwarding (number) {
    const own = storeUpstreamPrefix(number)
    db.prepare('DELETE FROM forward_outbox WHERE upstream >= ? AND upstream < ?').run(...prefixBounds(own))
    db.prepare('DELETE FROM forward_dead_letters WHERE upstream >= ? AND upstream < ?').run(...prefixBounds(own))
    db.prepare('DELETE FROM settings WHERE name >= ? AND name < ?').run(...prefixBounds(FORWARD_STATE + own))
  }

  // An upstream's queued entries, dead letters and delivery record.
  function dropForwarding (upstream) {
    db.prepare('DELETE FROM forward_outbox WHERE upstream = ?').run(upstream)
    db.prepare('DELETE FROM forward_dead_letters WHERE upstream = ?').run(upstream)
    db.prepare('DELETE FROM settings WHERE name = ?').run(FORWARD_STATE + upstream)
  }

  // Every worker polls this counter to apply credential changes within a
  // second (credential-store.js).
  function credentialsChanged () {
    db.prepare(`INSERT INTO settings (name, value) VALUES ('credentials_changed', '1')
      ON CONFLICT (name) DO UPDATE SET value = CAST(value AS INTEGER) + 1`).run()
  }

  // Removes the statements at `seqs`: their rows, their index rows in
  // every level (journaled, as the index file commits after the database
  // file), their hourly counts and their forwarding entries (queued and
  // dead). Returns the counts and the hashes of their attachments.
  const findStatement = db.prepare('SELECT seq, id, term_ids, attachments, stored_ms FROM statements WHERE seq = ?')
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
      const row = findStatement.get(at)
      if (!row) continue
      const termIds = JSON.parse(row.term_ids)
      journaled({ seq: row.seq, toSeq: null, id: row.id, terms: termIds })
      counts.add(row.stored_ms ?? storedMsOf(row.seq), termIds, null, -1)
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
  // the id that ends the next ID_SCAN_ROWS of a level (undefined: fewer are
  // left), and the store's ids up to it (or to the end) in one statement:
  // a delete of each id found cost a statement and a seek per row
  const idScanEnds = LEVELS.map((level) => db.prepare(`SELECT id FROM ${level.ids} WHERE id > ? ORDER BY id LIMIT 1 OFFSET ${ID_SCAN_ROWS - 1}`).pluck())
  const OF_STORE = 'length(id) = 20 AND substr(id, 17) = @suffix' // an id of the store (ids.js)
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
        if (!removeTermRows(state.heavy[0], change)) state.heavy.shift()
      }
      purgeJournal.run(JSON.stringify(change))
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
    dropStoreForwarding(number) // entries a worker that had not heard of the deletion yet queued
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
      if (performance.now() > deadline || removeTermRows(term, change)) {
        state.heavy.push(term)
        heavy.add(term)
      }
    }
    for (const c of purgeChanges) c.removeTermUpTo.run(change.storeTerm, change.upTo)
  }

  const ops = {
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
      const results = groups.map((records, g) => {
        const skip = new Set(same[g] || [])
        const keptAt = []
        records.forEach((r, i) => { if (!skip.has(r.id)) keptAt.push(i) })
        const kept = keptAt.map((i) => records[i])
        const blobs = kept.map((r) => idToBlob(r.id))
        const duplicates = takenIds(kept, blobs)
        if (duplicates.length) return { duplicates, learned: learned[g] }
        keptAt.forEach((i, k) => insertRecord(records[i], termIds[g][i], seq++, { id: blobs[k], now, pairs: pending }))
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
      const find = db.prepare('SELECT seq, term_ids, stored_ms, store, verb FROM statements WHERE seq = ?')
      const move = db.prepare('UPDATE statements SET seq = ? WHERE seq = ?')
      const setTermIds = db.prepare('UPDATE statements SET term_ids = ? WHERE seq = ?')
      counts.clear()
      for (const [id, at] of storedSeqs(ids)) {
        const row = find.get(at)
        move.run(seq, row.seq)
        let termIds = JSON.parse(row.term_ids)
        journaled({ seq: row.seq, toSeq: seq, id: idToBlob(id), terms: termIds })
        counts.add(row.stored_ms ?? storedMsOf(row.seq), termIds, null, -1)
        // a default store's statement moved past DEFAULT_TERM_FROM is found by the store term (store-terms.js)
        const storeTerm = row.store === null && defaultTermFrom !== null ? terms.id(STORE_TERM) : null
        if (storeTerm !== null && !termIds.includes(storeTerm)) {
          termIds = [...termIds, storeTerm]
          setTermIds.run('[' + termIds.join(',') + ']', seq)
          pending.terms.push(storeTerm)
          pending.seqs.push(seq)
          pending.verbs.push(row.verb)
        }
        counts.add(row.stored_ms ?? storedMsOf(seq), termIds, null, 1)
        seq++
      }
      counts.flush()
    },

    // Stores (src/stores/): a new one takes the next number. 'created',
    // 'taken' (the id) or 'full' (store-terms.js, STORE_SPAN).
    storeCreate ({ id, name }) {
      if (db.prepare('SELECT 1 FROM stores WHERE id = ?').get(id)) return 'taken'
      const number = db.prepare('SELECT coalesce(max(number), 0) + 1 FROM stores').pluck().get()
      if (number >= STORE_SPAN) return 'full'
      if (defaultTermFrom === null) {
        writeDefaultTermFrom.run(String(lastSeq.get() || 0))
        defaultTermFrom = readDefaultFrom()
      }
      db.prepare('INSERT INTO stores (number, id, name, created_at) VALUES (?, ?, ?, ?)').run(number, id, name, Date.now())
      return 'created'
    },

    // false when there is no such store; `days` null: kept for good
    storeRetention ({ id, days }) {
      return db.prepare('UPDATE stores SET retention_days = ? WHERE id = ? AND deleted_at IS NULL').run(days, id).changes === 1
    },

    // The lease `name` for `holder` until `ms` from now, when no other
    // holder has one that has not run out (settings, 'lease:<name>'). true: held.
    leaseTake ({ name, holder, ms }) {
      const key = 'lease:' + name
      const now = Date.now()
      const current = db.prepare('SELECT value FROM settings WHERE name = ?').pluck().get(key)
      const lease = current && JSON.parse(current)
      if (lease && lease.holder !== holder && lease.until > now) return false
      db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value').run(key, JSON.stringify({ holder, until: now + ms }))
      return true
    },

    // false when there is no such store; `urls` [] for none. Workers read
    // them again when the change mark moves (upstreams.js).
    storeForwarding ({ id, urls, dropUpstreams }) {
      const changed = db.prepare('UPDATE stores SET forward_urls = ? WHERE id = ? AND deleted_at IS NULL').run(urls.length ? JSON.stringify(urls) : null, id).changes === 1
      if (!changed) return false
      for (const upstream of dropUpstreams) dropForwarding(upstream)
      credentialsChanged()
      return true
    },

    // A new forwarder (forwarders.js); false when its store is gone.
    forwarderCreate ({ id, store, definition, at }) {
      if (!db.prepare('SELECT 1 FROM stores WHERE number = ? AND deleted_at IS NULL').get(store) && store !== 0) return false
      db.prepare('INSERT INTO forwarders (id, store, revision, definition, created_ms, updated_ms) VALUES (?, ?, 1, ?, ?, ?)').run(id, store, JSON.stringify(definition), at, at)
      credentialsChanged()
      return true
    },

    // Replaces a forwarder's definition if it is still at `revision`:
    // 'changed', 'moved' (another change came first) or 'missing'.
    forwarderReplace ({ id, store, revision, definition, at }) {
      const { changes } = db.prepare('UPDATE forwarders SET definition = ?, revision = revision + 1, updated_ms = ? WHERE id = ? AND store = ? AND revision = ?').run(JSON.stringify(definition), at, id, store, revision)
      if (changes) {
        credentialsChanged()
        return 'changed'
      }
      return db.prepare('SELECT 1 FROM forwarders WHERE id = ? AND store = ?').get(id, store) ? 'moved' : 'missing'
    },

    // Removes a forwarder with its queue and dead letters; false: none.
    forwarderRemove ({ id, store, upstream }) {
      if (!db.prepare('DELETE FROM forwarders WHERE id = ? AND store = ?').run(id, store).changes) return false
      dropForwarding(upstream)
      credentialsChanged()
      return true
    },

    // false when there is no such store
    storeRename ({ id, name }) {
      return db.prepare('UPDATE stores SET name = ? WHERE id = ?').run(name, id).changes === 1
    },

    documentInsert (doc) {
      return db.prepare(`INSERT INTO documents (key, resource, scope, registration, doc_id, content_type, etag, updated, content, agent, store)
        VALUES (@key, @resource, @scope, @registration, @docId, @contentType, @etag, @updated, @content, @agent, @store) ON CONFLICT (key) DO NOTHING`).run(doc).changes > 0
    },

    // Replaces when the stored etag is `etag` (any when null); `upsert` creates it when absent.
    documentReplace (doc, { etag, upsert }) {
      if (upsert) {
        return db.prepare(`INSERT INTO documents (key, resource, scope, registration, doc_id, content_type, etag, updated, content, agent, store)
          VALUES (@key, @resource, @scope, @registration, @docId, @contentType, @etag, @updated, @content, @agent, @store)
          ON CONFLICT (key) DO UPDATE SET content_type = excluded.content_type, etag = excluded.etag, updated = excluded.updated, content = excluded.content`).run(doc).changes > 0
      }
      const sql = `UPDATE documents SET content_type = @contentType, etag = @etag, updated = @updated, content = @content WHERE key = @key${etag === null ? '' : ' AND etag = @expected'}`
      return db.prepare(sql).run({ ...doc, expected: etag }).changes > 0
    },

    documentDelete (key, { etag }) {
      return etag === null
        ? db.prepare('DELETE FROM documents WHERE key = ?').run(key).changes > 0
        : db.prepare('DELETE FROM documents WHERE key = ? AND etag = ?').run(key, etag).changes > 0
    },

    documentDeleteMany ({ resource, scope, registration }) {
      if (registration === undefined) db.prepare('DELETE FROM documents WHERE resource = ? AND scope = ?').run(resource, scope)
      else db.prepare('DELETE FROM documents WHERE resource = ? AND scope = ? AND registration IS ?').run(resource, scope, registration || null)
    },

    attachmentsSave (attachments) {
      const insert = db.prepare('INSERT INTO attachments (sha2, content_type, length, content) VALUES (?, ?, ?, ?) ON CONFLICT (sha2) DO NOTHING')
      for (const a of attachments) insert.run(a.sha2, a.contentType, a.body.length, a.body)
    },

    // Agent erasure: the statements, their terms, their forwarding entries
    // (queued and dead) and the attachments no remaining statement uses.
    statementsErase (ids) {
      const removed = removeStatements([...storedSeqs(ids).values()])
      removed.attachments = removeUnusedAttachments(removed.hashes)
      delete removed.hashes
      return removed
    },

    // A store's deletion: the store is gone for every request at once (its
    // credentials with it), and its data is purged after, slice by slice
    // (storePurgeSlice, writer-loop.js). false: no such store (or the
    // default one).
    storeDelete ({ id }) {
      const store = db.prepare('SELECT number FROM stores WHERE id = ? AND deleted_at IS NULL AND number > 0').get(id)
      if (!store) return false
      db.prepare('UPDATE stores SET id = ?, deleted_at = ?, forward_urls = NULL WHERE number = ?').run(deletedId(store.number, id), Date.now(), store.number)
      db.prepare('DELETE FROM credentials WHERE store = ?').run(store.number)
      db.prepare('DELETE FROM forwarders WHERE store = ?').run(store.number)
      dropStoreForwarding(store.number)
      credentialsChanged() // also for a store without credentials: workers forget the tokens of it (bearer-tokens.js)
      return true
    },

    // One slice of a deleted store's purge (writer-loop.js), of the first
    // of its phases with something left (purge-phases in storePurge below):
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
    },

    documentsEraseAgent (agent) {
      const count = (resource) => db.prepare('DELETE FROM documents WHERE agent = ? AND resource = ?').run(agent, resource).changes
      return { state: count('state'), agentProfile: count('agentProfile') }
    },

    credentialUpsert ({ key, secretHash, scopes, store = 0 }) {
      const before = db.prepare('SELECT secret_hash, scopes, store FROM credentials WHERE key = ?').get(key)
      if (before && before.secret_hash === secretHash && before.scopes === JSON.stringify(scopes) && before.store === store) return
      db.prepare(`INSERT INTO credentials (key, secret_hash, scopes, created_at, store) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (key) DO UPDATE SET secret_hash = excluded.secret_hash, scopes = excluded.scopes, store = excluded.store`).run(key, secretHash, JSON.stringify(scopes), Date.now(), store)
      credentialsChanged()
    },

    // false when the key exists already
    credentialCreate ({ key, secretHash, scopes, store = 0 }) {
      const { changes } = db.prepare('INSERT INTO credentials (key, secret_hash, scopes, created_at, store) VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING')
        .run(key, secretHash, JSON.stringify(scopes), Date.now(), store)
      if (changes) credentialsChanged()
      return changes === 1
    },

    // false when there is no such key
    credentialSetScopes (key, scopes) {
      const { changes } = db.prepare('UPDATE credentials SET scopes = ? WHERE key = ?').run(JSON.stringify(scopes), key)
      if (changes) credentialsChanged()
      return changes === 1
    },

    // Not a change of the credential (no credentialsChanged): workers need
    // not read it again.
    credentialUsed (key, at) {
      db.prepare('UPDATE credentials SET last_used = max(coalesce(last_used, 0), ?) WHERE key = ?').run(at, key)
    },

    credentialRemove (key) {
      const { changes } = db.prepare('DELETE FROM credentials WHERE key = ?').run(key)
      if (changes) credentialsChanged()
      return changes === 1
    },

    outboxLease (upstream, { limit, leaseMs }) {
      const now = Date.now()
      const rows = db.prepare('SELECT statement_id, enqueued_at FROM forward_outbox WHERE upstream = ? AND lease_until < ? LIMIT ?').all(upstream, now, limit)
      const lease = db.prepare('UPDATE forward_outbox SET lease_until = ? WHERE upstream = ? AND statement_id = ?')
      for (const r of rows) lease.run(now + leaseMs, upstream, r.statement_id)
      return rows.map((r) => ({ upstream, statementId: blobToId(r.statement_id), enqueuedAt: r.enqueued_at }))
    },

    outboxRelease (entries, { delayMs }) {
      const release = db.prepare('UPDATE forward_outbox SET lease_until = ? WHERE upstream = ? AND statement_id = ?')
      for (const e of entries) release.run(Date.now() + delayMs, e.upstream, idToBlob(e.statementId))
    },

    outboxRemove (entries) {
      const remove = db.prepare('DELETE FROM forward_outbox WHERE upstream = ? AND statement_id = ?')
      for (const e of entries) remove.run(e.upstream, idToBlob(e.statementId))
    },

    outboxDeadLetter (entries, { status, reason }) {
      const dead = db.prepare(`INSERT INTO forward_dead_letters (upstream, statement_id, enqueued_at, status, reason, failed_at)
        VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
      for (const e of entries) dead.run(e.upstream, idToBlob(e.statementId), e.enqueuedAt, status, reason, Date.now())
      ops.outboxRemove(entries)
    },

    // How delivery to an upstream goes (delivery-state.js): read, merged, written.
    outboxNote (upstream, note) {
      const current = db.prepare('SELECT value FROM settings WHERE name = ?').pluck().get(FORWARD_STATE + upstream)
      const next = mergeNote(current ? JSON.parse(current) : null, note, Date.now())
      db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value').run(FORWARD_STATE + upstream, JSON.stringify(next))
    },

    outboxReplay: (params) => takeDeadLetters(params, (r) => insertOutbox.run(r.upstream, r.statement_id, Date.now())),

    outboxDiscard: (params) => takeDeadLetters(params),

    // The console's sessions (console-sessions.js). A new one first removes
    // those whose time is up, so the table holds live sessions only.
    sessionCreate ({ idHash, data, at, idleBefore, createdBefore }) {
      db.prepare('DELETE FROM console_sessions WHERE seen_ms < ? OR created_ms < ?').run(idleBefore, createdBefore)
      db.prepare('INSERT INTO console_sessions (id_hash, data, created_ms, seen_ms) VALUES (?, ?, ?, ?)').run(idHash, data, at, at)
    },
    sessionTouch (idHash, at) {
      db.prepare('UPDATE console_sessions SET seen_ms = max(seen_ms, ?) WHERE id_hash = ?').run(at, idHash)
    },
    sessionRemove (idHash) {
      return db.prepare('DELETE FROM console_sessions WHERE id_hash = ?').run(idHash).changes === 1
    },

    settingReplace (name, from, to) {
      return db.prepare('UPDATE settings SET value = ? WHERE name = ? AND value = ?').run(to, name, from).changes === 1
    },
    settingGetOrCreate (name, value) {
      db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(name, value)
      return db.prepare('SELECT value FROM settings WHERE name = ?').pluck().get(name)
    }
  }

  function insertPending () {
    counts.flushKept()
    if (!pending.terms.length) return
    insertTermRows(pending)
    pending = noRows()
  }
  for (const name of Object.keys(ops)) {
    if (LEAVES_PENDING.has(name)) continue
    const op = ops[name]
    ops[name] = (...args) => {
      insertPending()
      return op(...args)
    }
  }

  return {
    ops,
    recent,
    // index_journal: replayJournal() in a transaction holding both files'
    // write locks; clearJournal(last) after it has committed
    replayJournal,
    clearJournal: (last) => clearJournalTo.run(last),
    lastJournalEntry: () => lastJournalEntry.get() || 0,
    storedIds, // readSome() between transactions (id-filter.js)
    // at the start of each transaction
    began () {
      active = activeRecent.get()
      defaultTermFrom = readDefaultFrom()
      terms.began()
      storedIds.began()
    },
    stringTerms: () => stringTerms,
    // Around each operation: where its pending rows and its new terms
    // begin, to drop them when it fails (its savepoint is undone).
    mark: () => ({ rows: pending.terms.length, terms: terms.mark() }),
    dropFrom (at) {
      pending.terms.length = at.rows
      pending.seqs.length = at.rows
      pending.verbs.length = at.rows
      terms.dropFrom(at.terms)
    },
    beforeCommit: insertPending,
    commit: terms.commit,
    rollback () {
      pending = noRows()
      counts.dropKept()
      terms.rollback()
    }
  }
}

module.exports = { writeOps, sortedRows }
