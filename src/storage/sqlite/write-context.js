'use strict'

// What the writer's operations (write-ops.js) share, made once per writer:
// the term dictionary, the stored ids and seqs, the recent buffer taking
// index rows, whether the default store's statements get the store term,
// the hourly counters, the index journal, and the (term, seq) rows that
// storeBatch leaves pending until its transaction ends, with the hooks the
// writer loop calls around transactions and operations. Apart so that
// each group of operations takes the same state (several of it changes
// from one transaction to the next) rather than keeping a copy of its own.

const { termWriter } = require('./terms')
const { idFilter } = require('./id-filter')
const { indexMerges } = require('./index-merges')
const { idToBlob } = require('./ids')
const { defaultTermFromReader } = require('./store-terms')
const { firstSeqOf } = require('./seq')
const { RECENT_BUFFERS, DICT_TABLES, SEQ_OF_ID, useStoredMboxCase } = require('./schema')
const { counters } = require('./write-counters')
const { indexJournal } = require('./write-index-journal')

const PAIRS_PER_INSERT = 100

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

function writeContext (db) {
  const terms = termWriter(db, { dictTables: DICT_TABLES, recentDicts: RECENT_BUFFERS.map((buffer) => buffer.dict), active: () => ctx.active })
  const lastSeq = db.prepare('SELECT max(seq) FROM statements').pluck()
  const seqOfId = db.prepare(SEQ_OF_ID).pluck()
  const storedIds = idFilter(db)
  // the seq of the statement with `id` (as stored), or undefined
  const seqOf = (id) => storedIds.mayHave(id) ? seqOfId.get({ id }) : undefined
  const { recent, activeRecent, countInLevel, levelOfTable } = indexMerges(db)
  const readDefaultFrom = defaultTermFromReader(db)
  const pairInserts = RECENT_BUFFERS.map(() => new Map()) // by buffer, by number of parameters
  const counts = counters(db)
  useStoredMboxCase(db) // a voided or erased statement's learner (report-rollups.js, rowFacts)

  // (term, seq) rows in key order, about fifteen to a statement. They are
  // sorted as numbers, the term and the rank of the seq packed into one
  // double, rather than as [term, seq] pairs with a comparator: measured,
  // 1.6 against 9 ms per 1,000 statements, a tenth of the writer's time.
  // Each row carries its statement's verb (schema.js, the term tables).
  // (OR IGNORE: write-statements.js, insertRecord.)
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
      let insert = pairInserts[ctx.active].get(params.length)
      if (!insert) {
        insert = db.prepare(`INSERT OR IGNORE INTO ${RECENT_BUFFERS[ctx.active].terms} (term, seq, verb) VALUES ` + new Array(params.length / 3).fill('(?, ?, ?)').join(', '))
        pairInserts[ctx.active].set(params.length, insert)
      }
      insert.run(params)
    }
  }

  const ctx = {
    db,
    terms,
    counts,
    storedIds, // readSome() between transactions (id-filter.js)
    seqOf,
    recent,
    countInLevel,
    levelOfTable,
    index: indexJournal(db, { countInLevel, levelOfTable }),
    lastSeq,
    readDefaultFrom,
    insertOutbox: db.prepare('INSERT INTO forward_outbox (upstream, statement_id, enqueued_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING'),
    insertTermRows,
    noRows,
    // Which recent buffer takes new index rows (schema.js, index_recent):
    // read in each transaction (`began`), since a writer beside this one (an
    // import, the threads of LRS_SQLITE_WRITER=thread) may have switched them.
    active: activeRecent.get(),
    // Whether the default store's statements get the store term (store-terms.js):
    // read in each transaction too, as another writer may have made the
    // first store.
    defaultTermFrom: readDefaultFrom(),
    // The (term, seq) rows of the statements storeBatch stored in this
    // transaction, inserted once at its end (beforeCommit) in one sort:
    // measured against a sort and insert per request, 7 % less writer CPU per
    // statement and 6 % more statements/s (bench/writer-profile.js,
    // 150,000 statements, three alternations). Any other operation inserts
    // them first, so that it sees every row (restamp moves them, erasure
    // removes them), but for those in LEAVES_PENDING (write-ops.js), which
    // touch neither them nor the counters.
    pending: noRows(),
    stringTerms: 0, // terms received as strings (writerStats)

    nextSeq (storedMs) {
      return Math.max(firstSeqOf(storedMs), (lastSeq.get() || 0) + 1)
    },
    // id -> seq of those stored
    storedSeqs (ids) {
      const found = new Map()
      for (const id of ids) {
        const seq = seqOf(idToBlob(id))
        if (seq !== undefined) found.set(id, seq)
      }
      return found
    },

    // at the start of each transaction
    began () {
      ctx.active = activeRecent.get()
      ctx.defaultTermFrom = readDefaultFrom()
      terms.began()
      storedIds.began()
    },
    insertPending () {
      counts.flushKept()
      if (!ctx.pending.terms.length) return
      insertTermRows(ctx.pending)
      ctx.pending = noRows()
    },
    // Around each operation: where its pending rows and its new terms
    // begin, to drop them when it fails (its savepoint is undone).
    mark: () => ({ rows: ctx.pending.terms.length, terms: terms.mark() }),
    dropFrom (at) {
      ctx.pending.terms.length = at.rows
      ctx.pending.seqs.length = at.rows
      ctx.pending.verbs.length = at.rows
      terms.dropFrom(at.terms)
    },
    commit: terms.commit,
    rollback () {
      ctx.pending = noRows()
      counts.dropKept()
      terms.rollback()
    }
  }
  return ctx
}

module.exports = { writeContext, sortedRows }
