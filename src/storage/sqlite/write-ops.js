'use strict'

// Every write the SQLite engine makes, as functions of (args) run by the
// writer inside a transaction (writer-loop.js: `writer.call('opName',
// ...args)` runs ops[opName]). Arguments and results are plain values
// (they cross threads and sockets). This file assembles the operations
// from the files that hold them, by what they write:
//
//   file                    operations
//   write-statements.js     storeBatch, insertStored, restamp, attachmentsSave
//   write-deletion.js       statementsErase, storePurgeSlice
//   write-stores.js         storeCreate, storeRename, storeRetention,
//                           storeForwarding, storeDelete
//   write-forwarding.js     forwarderCreate, forwarderReplace, forwarderRemove,
//                           outboxLease, outboxRelease, outboxRemove,
//                           outboxDeadLetter, outboxNote, outboxReplay,
//                           outboxDiscard
//   write-documents.js      documentInsert, documentReplace, documentDelete,
//                           documentDeleteMany, documentsEraseAgent
//   write-credentials.js    credentialUpsert, credentialCreate,
//                           credentialSetScopes, credentialUsed,
//                           credentialRemove, sessionCreate, sessionTouch,
//                           sessionRemove
//   write-settings.js       leaseTake, settingReplace, settingGetOrCreate
//   write-reports.js        savedReportCreate, savedReportReplace,
//                           savedReportRemove
//
// What they share (write-context.js): the term dictionary, the stored ids,
// the recent buffer in use, the pending (term, seq) rows and the hooks
// around transactions; the hourly counters (write-counters.js); the index
// changes and their journal (write-index-journal.js).

const { writeContext, sortedRows } = require('./write-context')
const { statementWrites } = require('./write-statements')
const { deletionWrites } = require('./write-deletion')
const { storeWrites } = require('./write-stores')
const { forwardingWrites } = require('./write-forwarding')
const { documentWrites } = require('./write-documents')
const { credentialWrites } = require('./write-credentials')
const { settingWrites } = require('./write-settings')
const { reportWrites } = require('./write-reports')

const GROUPS = [statementWrites, deletionWrites, storeWrites, forwardingWrites, documentWrites, credentialWrites, settingWrites, reportWrites]

// Operations that leave the transaction's pending index rows and counts
// where they are (write-context.js, pending): storeBatch adds to them; a
// credential's last use comes with requests (once a minute per key and
// worker) and would otherwise split the transaction's one sort of its rows.
const LEAVES_PENDING = new Set(['storeBatch', 'credentialUsed', 'outboxNote'])

function writeOps (db) {
  const ctx = writeContext(db)
  const ops = {}
  for (const group of GROUPS) {
    const groupOps = group(ctx)
    for (const name of Object.keys(groupOps)) {
      if (Object.hasOwn(ops, name)) throw new Error(`write operation ${name} is defined twice`)
      // Every other operation inserts the pending rows first. Wrapped in
      // the group's own object too: an operation that calls another of its
      // group (outboxDeadLetter) calls it as the loop would.
      if (!LEAVES_PENDING.has(name)) {
        const op = groupOps[name]
        groupOps[name] = (...args) => {
          ctx.insertPending()
          return op(...args)
        }
      }
      ops[name] = groupOps[name]
    }
  }

  return {
    ops,
    recent: ctx.recent,
    // index_journal: replayJournal() in a transaction holding both files'
    // write locks; clearJournal(last) after it has committed
    replayJournal: ctx.index.replayJournal,
    clearJournal: ctx.index.clearJournal,
    lastJournalEntry: ctx.index.lastJournalEntry,
    storedIds: ctx.storedIds, // readSome() between transactions (id-filter.js)
    began: ctx.began, // at the start of each transaction
    stringTerms: () => ctx.stringTerms,
    // Around each operation: where its pending rows and its new terms
    // begin, to drop them when it fails (its savepoint is undone).
    mark: ctx.mark,
    dropFrom: ctx.dropFrom,
    beforeCommit: ctx.insertPending,
    commit: ctx.commit,
    rollback: ctx.rollback
  }
}

module.exports = { writeOps, sortedRows }
