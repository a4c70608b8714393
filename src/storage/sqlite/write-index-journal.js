'use strict'

// What the writes that take statements away or move them (an erasure, a
// restamp, a store's purge) change in the index levels of both files, and
// the journal (schema.js, index_journal) that makes those changes again in
// the index file after a stop between the two files' commits. Apart
// because three kinds of write share it and the writer loop replays it
// (writer-loop.js, begin): what keeps the two files agreeing is in one
// place, whoever's write it is.

const { LEVELS, RECENT_BUFFERS } = require('./schema')

// Up to this many rows of one term in each level go in one slice of a
// purge (removeTermRows).
const TERM_ROWS_AT_ONCE = 512

// `countInLevel`, `levelOfTable`: index-merges.js, the id rows counted per level.
function indexJournal (db, { countInLevel, levelOfTable }) {
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
  // entry in the journal (its `purge` column) for the index file's part,
  // as above.
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

  return {
    journaled,
    removeTermRows,
    // the rows of `term` up to seq `upTo`, in every level (a purge slice's store term)
    removeTermUpTo (term, upTo) {
      for (const c of purgeChanges) c.removeTermUpTo.run(term, upTo)
    },
    // a purge slice's `change`, journaled once its rows went
    journalPurge: (change) => purgeJournal.run(JSON.stringify(change)),
    // replayJournal() in a transaction holding both files' write locks;
    // clearJournal(last) after it has committed
    replayJournal,
    clearJournal: (last) => clearJournalTo.run(last),
    lastJournalEntry: () => lastJournalEntry.get() || 0
  }
}

module.exports = { indexJournal }
