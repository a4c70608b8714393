'use strict'

// The SQLite writer's loop, whoever feeds it: operations (write-ops.js)
// queue up while a transaction runs and the next transaction takes them
// all: one commit (one fsync) for many requests, each operation in a
// savepoint of its own, so one failing operation fails alone. The switch
// of the recent index buffers, reading the stored ids into a filter
// (id-filter.js) and WAL checkpoints run between transactions; the index
// merges in a thread of their own (merge-thread.js), which it starts.
//
// It runs either in a thread of one worker (writer-thread.js: `node
// src/server.js`, the CLIs, tests), or in the one writer process of a host
// that every worker sends its writes to (writer-process.js: PM2). Each
// operation comes with the `reply` function of whoever sent it; the
// replies of one transaction go out together, one call per sender.

const path = require('node:path')
const { Worker } = require('node:worker_threads')
const { openDatabase, databaseFile } = require('./open')
const { writeOps } = require('./write-ops')
const { errorOf } = require('./writer-errors')
const { walBound } = require('./wal-bound')
const { formerId } = require('../../stores/store-keys')

// A transaction holds the write lock of the file and its requests wait for
// its end: it takes what queued up to about a thousand statements, not
// everything. (Measured against 500 and 256 operations: about 6 % fewer
// bytes written per statement, fewer fsyncs, the same CPU.)
const MAX_OPERATIONS_PER_TRANSACTION = 1024
const MAX_STATEMENTS_PER_TRANSACTION = 1000

// Where several writers share the file (a thread per worker, or an import
// beside the LRS), each takes the write lock in turn. SQLite's own busy
// handler sleeps up to 100 ms between tries, while a busy writer takes the
// lock again within microseconds of its commit: measured, one worker
// waited up to 2 s for its turn. So a writer asks again every millisecond,
// and a shared one leaves a moment for the others after a full
// transaction before its next one.
const LOCK_TIMEOUT_MS = 5000
const YIELD_MS = 2


// The recent buffer taking index rows is switched once it holds
// `mergeStatements` statements (and the other one is empty), checked
// after every CHECK_EVERY_STATEMENTS stored; the merge thread copies the
// full one into the middle level (merge-loop.js). Fewer, and each page of
// the middle tables is rewritten for few statements; more, and every
// commit rewrites more pages of the buffer.
const DEFAULT_MERGE_STATEMENTS = 8192

// The operations that write the index file as well (its levels hold rows
// they move or remove): their transaction takes its write lock too,
// waiting for the merge thread's slice to end. Every other transaction
// takes the lock of the main file only.
const INDEX_FILE_OPS = new Set(['statementsErase', 'restamp', 'storePurgeSlice'])
const MERGES_RESTART_MS = 1000

// The page cache of the host's one writer (the writer process, or the
// thread of a process on its own; open.js gives every other connection
// 64 MiB, and so the writer threads of LRS_SQLITE_WRITER=thread, one in
// every worker). A merge into a level of millions reads and rewrites
// pages that the memory map does not cover: SQLite maps at most 2 GiB of
// the file (11.3 GiB at 11.5 M statements, most of its index pages past
// that), and pages a checkpoint has not put back yet are read from the
// WAL. Those come through the page cache, and with 64 MiB they were most
// likely read again and again. At 11.5 M statements the writer took 78.0
// against 98.7 us of CPU per statement, 10,890 against 8,580 statements/s
// (medians; bench/writer-profile.js --store, six alternations,
// docs/benchmarks.md). 512 MiB and 1 GiB measured slower again
// in runs of 100,000 statements: a cache that has not filled yet costs a
// fresh allocation for every page.
const ONE_WRITER_CACHE_KIB = 256 * 1024

// How often an idle writer whose id filter waits (id-filter.js: another
// connection wrote) tries again.
const IDS_RETRY_MS = 1000

// A deleted store's data is purged by the writer between transactions, a
// slice at a time (write-deletion.js, storePurgeSlice), each slice a
// transaction of its own that stops taking statements after
// PURGE_SLICE_MS: while requests are queued, one slice between two of
// their transactions (what they wait for grows by one slice at most);
// while none are, slice after slice, each PURGE_IDLE_SLICE_MS (fewer
// commits, each an fsync of both files). While requests keep coming, the
// writer waits as long as a slice took before the next one. PURGE_GRACE_MS: how long after its
// deletion a store may still get a last write (a worker hears of the
// removed credentials within LRS_CREDENTIAL_POLL_MS), which a later slice
// then finds; only after it is the store marked purged.
const PURGE_SLICE_STATEMENTS = 5000
const PURGE_MIN_STATEMENTS = 50
const PURGE_FIRST_US = 40 // a statement's share of a slice, until slices have said
const PURGE_SLICE_MS = 10
const PURGE_IDLE_SLICE_MS = 40
const PURGE_GRACE_MS = 10000
const PURGE_RETRY_MS = 1000
// How often an idle writer looks for a store deleted elsewhere (the CLI, or another writer of the file).
const PURGE_POLL_MS = 5000

const pause = new Int32Array(new SharedArrayBuffer(4))
const sleep = (ms) => Atomics.wait(pause, 0, 0, ms) // blocks this thread only

const CARRY_STATEMENTS = new Set(['storeBatch', 'insertStored'])

function statementCount ({ op, args }) {
  if (op === 'storeBatch') return args[0].reduce((n, group) => n + group.length, 0)
  if (op === 'insertStored') return args[0].length
  return 1
}

// `shared`: other writers may use the file (see YIELD_MS). `oneWriter`:
// the host's one writer (ONE_WRITER_CACHE_KIB). `warn(message,
// error)`: something to log that no sender waits for.
// `maxPageCount`: tests only, a file that is full at that many pages;
// `mergeStatements`, `middleStatements`, `levelRatio`: merges after fewer
// statements; `merges: false`, none (no merge thread).
// `info(message, fields)`: the same, for what went well (a store purged).
// `purgeGraceMs`: tests only, a shorter PURGE_GRACE_MS; `purge: false`, no purge.
function createWriterLoop ({ dataDir, walLimitBytes, mergeStatements, middleStatements, levelRatio, maxPageCount, shared = true, oneWriter = false, merges: withMerges = true, purgeGraceMs = PURGE_GRACE_MS, purge = true }, { warn, info = () => {} }) {
  const db = openDatabase(dataDir, { busyTimeoutMs: 0 }) // the schema is there: the opener made it
  if (maxPageCount) db.pragma(`max_page_count = ${maxPageCount}`)
  if (oneWriter) db.pragma(`cache_size = -${ONE_WRITER_CACHE_KIB}`)
  const checkpointIfLarge = walBound(db, { schema: 'main', walFile: databaseFile(dataDir) + '-wal', limitBytes: walLimitBytes }) // the index file's is the merge thread's
  const mergeAt = mergeStatements || DEFAULT_MERGE_STATEMENTS
  const checkEvery = Math.min(1000, mergeAt)
  const { ops, recent, replayJournal, clearJournal, lastJournalEntry, storedIds, began: beganTransaction, mark, dropFrom, beforeCommit, commit, rollback, stringTerms } = writeOps(db)
  const lockMain = db.prepare('UPDATE index_recent SET only = only WHERE 0')

  // A transaction over both files commits the database file first: the
  // journal (schema.js, index_journal) has what a stop between the two
  // commits would have lost of the index file's changes. Applied again in
  // every transaction that writes the index file, before its operations,
  // and cleared once one has committed.
  let journalTo = 0 // the last entry of the running transaction's journal
  function clearJournalAfterCommit () {
    if (!journalTo) return
    try {
      begin(false)
      clearJournal(journalTo)
      db.exec('COMMIT')
      journalTo = 0
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK')
      // applied again by the next transaction that writes the index file
    }
  }
  if (lastJournalEntry()) {
    begin(true) // applies it
    try {
      const upTo = lastJournalEntry()
      db.exec('COMMIT')
      journalTo = upTo
    } finally {
      if (db.inTransaction) db.exec('ROLLBACK')
    }
    clearJournalAfterCommit()
  }

  // The merge thread; one that stops is started again after
  // MERGES_RESTART_MS (meanwhile the full recent buffer waits, and the
  // one taking rows grows).
  let closing = false
  let merges = withMerges ? startMerges() : { postMessage () {} }
  function startMerges () {
    const thread = new Worker(path.join(__dirname, 'merge-thread.js'), { workerData: { dataDir, mergeStatements: mergeAt, middleStatements, levelRatio } })
    thread.on('message', ({ warning, error, copied }) => {
      if (copied) keepRecent(0) // empties it, without waiting for the next write
      else warn(warning, error)
    })
    thread.on('error', (err) => warn('the SQLite index merge thread stopped; it starts again', errorOf(err)))
    thread.on('exit', () => {
      if (!closing) setTimeout(() => { if (!closing) merges = startMerges() }, MERGES_RESTART_MS).unref()
    })
    return thread
  }

  // `both`: the index file's write lock too (INDEX_FILE_OPS), and what the
  // journal holds applied; else the main file's lock only (BEGIN IMMEDIATE
  // would take every attached file's).
  // `wait: false`: one try (a purge slice, which gives way to requests
  // rather than hold them up while the merge thread has the index file).
  function begin (both, { wait = true } = {}) {
    const deadline = wait ? Date.now() + LOCK_TIMEOUT_MS : 0
    for (;;) {
      try {
        if (both) {
          db.exec('BEGIN IMMEDIATE')
          // what the last transaction over both files journaled, committed
          // in both: cleared here, not applied again (in its own transaction
          // after that one, clearJournalAfterCommit, when none came first)
          if (journalTo) clearJournal(journalTo)
          replayJournal()
        } else {
          db.exec('BEGIN')
          lockMain.run()
        }
        return
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK')
        if (!/^SQLITE_BUSY/.test(err.code) || Date.now() > deadline) throw err
        sleep(1)
      }
    }
  }

  // The recent buffers (index-merges.js, recent): switched once the one
  // taking rows is full, the other emptied once the merge thread has
  // copied it. Looked at without a transaction; one only when there is
  // something to do.
  let storedSinceCheck = checkEvery
  function keepRecent (statements) {
    if (!db.open) return
    storedSinceCheck += statements
    const due = storedSinceCheck >= checkEvery
    if (!due && !recent.copyDone()) return
    try {
      begin(false)
      const emptied = recent.emptyIfCopied()
      const switched = (due || emptied) && recent.switchIfFull(mergeAt)
      db.exec('COMMIT')
      if (due) storedSinceCheck = 0
      if (switched) merges.postMessage('wake') // a full buffer to copy
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK')
      if (!/^SQLITE_BUSY/.test(err.code)) warn('switching the SQLite recent index buffers failed', errorOf(err))
    }
  }

  const queue = [] // { id, op, args, reply }
  let scheduled = false
  // What the loop has done since it started (op `writerStats`): how many
  // statements a transaction carried, how much of the time it was busy,
  // and how many terms came as strings (the rest came as ids).
  const stats = { transactions: 0, operations: 0, statements: 0, busyMs: 0, startedAt: Date.now() }

  function runQueued () {
    scheduled = false
    if (!queue.length) return
    let statements = 0 // towards the bound: another operation counts one
    let stored = 0 // statements the operations carry (writerStats)
    let take = 0
    while (take < queue.length && take < MAX_OPERATIONS_PER_TRANSACTION && (take === 0 || statements < MAX_STATEMENTS_PER_TRANSACTION)) {
      const n = statementCount(queue[take])
      statements += n
      if (CARRY_STATEMENTS.has(queue[take].op)) stored += n
      take++
    }
    const batch = queue.splice(0, take)
    const results = []
    const began = performance.now()
    const both = batch.some((m) => INDEX_FILE_OPS.has(m.op))
    try {
      begin(both)
      beganTransaction()
      for (const { id, op, args } of batch) {
        db.exec('SAVEPOINT operation')
        const at = mark()
        try {
          results.push({ id, value: ops[op](...args) })
          db.exec('RELEASE operation')
        } catch (err) {
          // A full disk or an I/O error can make SQLite roll the whole
          // transaction back: then every operation of it failed, with this.
          if (!db.inTransaction) throw err
          dropFrom(at)
          db.exec('ROLLBACK TO operation; RELEASE operation')
          results.push({ id, error: errorOf(err) })
        }
      }
      beforeCommit()
      const upTo = both ? lastJournalEntry() : 0
      db.exec('COMMIT')
      if (both) journalTo = upTo // only once both files have committed
      commit()
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK')
      rollback()
      results.length = 0
      for (const { id } of batch) results.push({ id, error: errorOf(err) })
    }
    sendReplies(batch, results)
    if (both) clearJournalAfterCommit()
    keepRecent(stored)
    readIds()
    checkpointIfLarge()
    stats.transactions++
    stats.operations += batch.length
    stats.statements += stored
    stats.busyMs += performance.now() - began
    if (batch.some((m) => m.op === 'storeDelete')) purgeSoon()
    if (queue.length) {
      if (shared && statements >= MAX_STATEMENTS_PER_TRANSACTION) sleep(YIELD_MS)
      schedule()
    }
  }

  // The stored ids into the writer's filter (id-filter.js): a chunk after
  // each transaction, and chunk after chunk while nothing is queued. It
  // starts with the first transaction: a writer that never writes (an
  // export, a credential command) reads nothing.
  let idleRead = null // the next idle read, when one is scheduled
  function readIds () {
    let more = false
    try {
      more = storedIds.readSome()
    } catch (err) {
      warn('reading the stored ids failed; every id is looked up until they are read again', errorOf(err))
    }
    if (idleRead || !db.open || (!more && storedIds.ready())) return
    const next = () => {
      idleRead = null
      if (!queue.length && db.open) readIds()
    }
    idleRead = more ? setImmediate(next) : setTimeout(next, IDS_RETRY_MS).unref()
  }

  // Deleted stores' purge (PURGE_SLICE_STATEMENTS): `purging` is the
  // store being purged, with what has gone of it so far.
  const nextToPurge = db.prepare('SELECT number, id, deleted_at FROM stores WHERE deleted_at IS NOT NULL AND purged_at IS NULL ORDER BY number LIMIT 1')
  let purging = null
  let purgeTimer = null
  let purgeAt = Infinity // when the scheduled step runs
  function purgeSoon (ms = 0) {
    if (closing || !db.open || !purge) return
    if (purgeTimer) {
      if (Date.now() + ms >= purgeAt) return
      clearTimeout(purgeTimer) // a wait (PURGE_POLL_MS) cut short: a store was deleted
    }
    const step = () => { purgeTimer = null; purgeAt = Infinity; purgeStep() }
    purgeAt = Date.now() + ms
    purgeTimer = ms ? setTimeout(step, ms) : setImmediate(step)
    if (ms) purgeTimer.unref()
  }
  function purgeStep () {
    if (closing || !db.open) return
    let slice
    const sliceStart = performance.now()
    try {
      if (!purging) {
        const next = nextToPurge.get()
        if (!next) {
          purgeSoon(PURGE_POLL_MS)
          return
        }
        purging = { number: next.number, store: formerId(next.id), started: Date.now(), deletedAt: next.deleted_at, statements: 0, documents: 0, attachments: 0, state: {}, usPerStatement: PURGE_FIRST_US }
      }
      try {
        begin(true, { wait: false })
      } catch (err) {
        if (!/^SQLITE_BUSY/.test(err.code)) throw err
        purgeSoon(1) // the merge thread's slice holds the index file: requests go first meanwhile
        return
      }
      beganTransaction()
      // (begin clears the journal of the slice before: no transaction, and no fsync, of its own)
      const budgetMs = queue.length ? PURGE_SLICE_MS : PURGE_IDLE_SLICE_MS
      // as many statements as the slices before took on average in that time
      const limit = Math.max(PURGE_MIN_STATEMENTS, Math.min(PURGE_SLICE_STATEMENTS, Math.round(budgetMs * 1000 / purging.usPerStatement)))
      slice = ops.storePurgeSlice({ number: purging.number, limit, budgetMs, graceMs: purgeGraceMs }, purging.state)
      beforeCommit()
      const upTo = lastJournalEntry()
      db.exec('COMMIT')
      journalTo = upTo
      commit()
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK')
      rollback()
      if (purging) purging.state = {} // what the slice undone removed is back: every phase again
      if (!/^SQLITE_BUSY/.test(err.code)) warn('purging a deleted store failed; it is tried again', errorOf(err))
      purgeSoon(PURGE_RETRY_MS)
      return
    }
    for (const what of ['statements', 'documents', 'attachments']) purging[what] += slice[what]
    if (slice.statements > PURGE_MIN_STATEMENTS / 2) purging.usPerStatement = 0.7 * purging.usPerStatement + 0.3 * (performance.now() - sliceStart) * 1000 / slice.statements
    if (slice.done) {
      const { store, statements, documents, attachments, started, deletedAt } = purging
      // the counts and `ms` are this writer's: a purge a stop cut short was
      // resumed here (sinceDeletionMs says how long it took in all)
      info('deleted store purged', { store, statements, documents, attachments, ms: Date.now() - started, sinceDeletionMs: Date.now() - deletedAt })
      purging = null
      purgeSoon()
    } else if (slice.waiting) {
      purgeSoon(PURGE_RETRY_MS)
    } else {
      // while requests come, the writer rests as long as the slice took:
      // at most half its time, and its CPU on a small machine, goes to the purge
      const busy = stats.transactions !== purging.transactions
      purging.transactions = stats.transactions
      purgeSoon(busy ? Math.ceil(performance.now() - sliceStart) : 0)
    }
  }
  purgeSoon() // one deleted before a stop goes on

  function sendReplies (batch, results) {
    const bySender = new Map()
    batch.forEach(({ reply }, i) => {
      const replies = bySender.get(reply)
      if (replies) replies.push(results[i])
      else bySender.set(reply, [results[i]])
    })
    for (const [reply, replies] of bySender) reply(replies)
  }

  function schedule () {
    if (scheduled || !db.open) return
    scheduled = true
    setImmediate(runQueued)
  }

  return {
    // `message`: { id, op, args }; `reply(replies)` gets [{ id, value | error }].
    push (message, reply) {
      if (message.op === 'writerStats') {
        reply([{ id: message.id, value: { ...stats, busyMs: Math.round(stats.busyMs), uptimeMs: Date.now() - stats.startedAt, termsAsStrings: stringTerms(), idFilterReady: storedIds.ready(), cacheKiB: -db.pragma('cache_size', { simple: true }) } }])
        return
      }
      if (!Object.hasOwn(ops, message.op)) {
        reply([{ id: message.id, error: { name: 'Error', message: `unknown operation ${message.op}` } }])
        return
      }
      queue.push({ ...message, reply })
      schedule()
    },
    // Runs what is queued now, then closes the database.
    close () {
      while (queue.length) runQueued()
      closing = true
      merges.postMessage('close')
      db.close()
    }
  }
}

module.exports = { createWriterLoop }
