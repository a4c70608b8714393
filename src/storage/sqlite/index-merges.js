'use strict'

// The index levels of the SQLite store (schema.js, LEVELS) kept in shape:
// rounds that merge each level into the next, the switch of the two
// recent buffers, and the statements each level holds (index_levels).
// The writer switches the recent buffers and empties the full one once it
// has been copied (`recent`, inside its transactions); the merge thread
// (merge-loop.js) copies it into the middle level and merges the levels
// above, each slice in a transaction of its own that writes the index file
// only (open.js), so that it never waits for the writer nor the writer
// for it.

const { RECENT_BUFFERS, UPPER_LEVELS } = require('./schema')

function indexMerges (db) {
  const activeRecent = db.prepare('SELECT active FROM index_recent').pluck()
  // The index rows of one level into the next (schema.js, LEVELS), in
  // rounds: a round takes the rows there when it starts (seq <= its cap)
  // and moves them in slices of key ranges, each a transaction of its own.
  // All of a round's rows together rewrite each page of the next level
  // about once, which is what makes merging pay; the slices keep each hold
  // of the write lock short (one transaction for 8,192 statements held it
  // 500 ms at 1 M). Rows stored after the start wait for the next round.
  // Each slice's end is found when it starts, `step` rows past the last
  // one's: finding them all at the start read a whole level at once (two
  // seconds for a level of 2 M statements, holding every request).
  // A round of the recent level (level 0) copies the full recent buffer;
  // the writer switches the buffers and empties the full one (`recent`).
  const FIRST_TERM = [-Number.MAX_SAFE_INTEGER, -1] // a store's term ids are negative (store-terms.js)
  const LAST_TERM = [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]
  const FIRST_ID = Buffer.alloc(0)
  const LAST_ID = Buffer.alloc(17, 0xff)
  const DONE = { terms: LAST_TERM, ids: LAST_ID, dict: LAST_ID }
  // The bench's statements have 8 to 10 (term, seq) rows; a round whose
  // statements have more or fewer takes more or fewer slices for them.
  const TERM_ROWS_PER_STATEMENT = 9
  const levelCount = db.prepare('SELECT statements FROM idx.index_levels WHERE level = ?').pluck()
  const addToLevel = db.prepare('INSERT INTO idx.index_levels (level, statements) VALUES (?, ?) ON CONFLICT (level) DO UPDATE SET statements = max(0, statements + excluded.statements)')
  const BIG = UPPER_LEVELS.length // levels: 0 recent, 1 middle, 2 level2, 3 level3, BIG the big tables
  // Statements moved into or out of `level` (counted above recent, below big).
  function countInLevel (level, n) {
    if (level > 0 && level < BIG && n) addToLevel.run(level, n)
  }
  // The level (as above) of LEVELS[i] (schema.js: both recent buffers first).
  const levelOfTable = (i) => Math.max(0, i - RECENT_BUFFERS.length + 1)
  // Where the next slice of level `from` ends: `step` rows past the last key.
  function sliceEnds (from) {
    return {
      termAfter: db.prepare(`SELECT term, seq FROM ${from.terms} WHERE (term, seq) > (?, ?) ORDER BY term, seq LIMIT 1 OFFSET ?`).raw(),
      idAfter: db.prepare(`SELECT id FROM ${from.ids} WHERE id > ? ORDER BY id LIMIT 1 OFFSET ?`).pluck(),
      keyAfter: db.prepare(`SELECT key FROM ${from.dict} WHERE key > ? ORDER BY key LIMIT 1 OFFSET ?`).pluck()
    }
  }
  // What moves the rows of level `from` into level `to`.
  function mover (from, to) {
    return {
      ...sliceEnds(from),
      newest: db.prepare(`SELECT max(seq) FROM ${from.ids}`).pluck(),
      moveTerms: db.prepare(`INSERT INTO ${to.terms} (term, seq, verb) SELECT term, seq, verb FROM ${from.terms}
        WHERE (term, seq) > (?, ?) AND (term, seq) <= (?, ?) AND seq <= ? ORDER BY term, seq`),
      dropTerms: db.prepare(`DELETE FROM ${from.terms} WHERE (term, seq) > (?, ?) AND (term, seq) <= (?, ?) AND seq <= ?`),
      moveIds: db.prepare(`INSERT INTO ${to.ids} (id, seq) SELECT id, seq FROM ${from.ids} WHERE id > ? AND id <= ? AND seq <= ? ORDER BY id`),
      dropIds: db.prepare(`DELETE FROM ${from.ids} WHERE id > ? AND id <= ? AND seq <= ?`),
      // dictionary keys (schema.js, TERM_DICTIONARY) have no seq: a round
      // moves those there when the slice runs, new ones included
      moveKeys: db.prepare(`INSERT INTO ${to.dict} (key, id) SELECT key, id FROM ${from.dict} WHERE key > ? AND key <= ? ORDER BY key`),
      dropKeys: db.prepare(`DELETE FROM ${from.dict} WHERE key > ? AND key <= ?`)
    }
  }
  // What copies recent buffer `from` into the middle level `to`, and
  // empties it. (OR IGNORE: a row the middle level has already is left as
  // it is rather than failing the slice.)
  function copier (from, to) {
    return {
      count: db.prepare(`SELECT count(*) FROM ${from.ids}`).pluck(),
      ...sliceEnds(from),
      hasRows: db.prepare(`SELECT EXISTS (SELECT 1 FROM ${from.ids}) OR EXISTS (SELECT 1 FROM ${from.terms}) OR EXISTS (SELECT 1 FROM ${from.dict})`).pluck(),
      copyTerms: db.prepare(`INSERT OR IGNORE INTO ${to.terms} (term, seq, verb) SELECT term, seq, verb FROM ${from.terms}
        WHERE (term, seq) > (?, ?) AND (term, seq) <= (?, ?) ORDER BY term, seq`),
      copyIds: db.prepare(`INSERT OR IGNORE INTO ${to.ids} (id, seq) SELECT id, seq FROM ${from.ids} WHERE id > ? AND id <= ? ORDER BY id`),
      copyKeys: db.prepare(`INSERT OR IGNORE INTO ${to.dict} (key, id) SELECT key, id FROM ${from.dict} WHERE key > ? AND key <= ? ORDER BY key`),
      // no WHERE: SQLite drops the table's pages without visiting its rows
      emptyTerms: db.prepare(`DELETE FROM ${from.terms}`),
      emptyIds: db.prepare(`DELETE FROM ${from.ids}`),
      emptyKeys: db.prepare(`DELETE FROM ${from.dict}`)
    }
  }
  const copiers = RECENT_BUFFERS.map((buffer) => copier(buffer, UPPER_LEVELS[0]))
  // movers[level]: level into level + 1, above the recent level
  const movers = [null, ...UPPER_LEVELS.slice(0, -1).map((level, i) => mover(level, UPPER_LEVELS[i + 1]))]

  // The recent buffers, as the writer keeps them, inside its transactions:
  // the one taking rows is switched once it holds `statements` and the
  // other one is empty; the other one is emptied once the merge thread
  // has copied it whole (index_copy.generation has reached the switch).
  const switchState = db.prepare('SELECT active, generation FROM index_recent').raw()
  const setSwitched = db.prepare('UPDATE index_recent SET active = ?, generation = generation + 1')
  const copiedThrough = db.prepare('SELECT generation FROM idx.index_copy').pluck()
  const recent = {
    // whether the buffers were switched
    switchIfFull (statements) {
      const [taking] = switchState.get()
      if (copiers[taking].count.get() < statements || copiers[1 - taking].hasRows.get()) return false
      setSwitched.run(1 - taking)
      return true
    },
    // whether the full buffer has been copied and waits to be emptied
    copyDone () {
      const [taking, generation] = switchState.get()
      return copiedThrough.get() >= generation && copiers[1 - taking].hasRows.get() === 1
    },
    // whether the full buffer was emptied
    emptyIfCopied () {
      if (!recent.copyDone()) return false
      const full = copiers[1 - activeRecent.get()]
      full.emptyTerms.run()
      full.emptyIds.run()
      full.emptyKeys.run()
      return true
    }
  }

  // A slice of the copy of the full recent buffer into the middle level,
  // by the merge thread: from where the copy has got in the index file, so
  // that a copy cut short goes on from there. DONE when there is nothing
  // to copy: no switch since the last copy.
  function copySlice ({ idStep, termStep }) {
    const [taking, generation] = switchState.get()
    if (copiedThrough.get() >= generation) return DONE
    const buffer = 1 - taking
    const after = copiedAfter()
    const c = copiers[buffer]
    const next = { ...after }
    if (after.terms !== LAST_TERM) {
      next.terms = c.termAfter.get(...after.terms, termStep - 1) || LAST_TERM
      c.copyTerms.run(...after.terms, ...next.terms)
    }
    if (after.ids !== LAST_ID) {
      next.ids = c.idAfter.get(after.ids, idStep - 1) || LAST_ID
      countInLevel(1, c.copyIds.run(after.ids, next.ids).changes)
    }
    if (after.dict !== LAST_ID) {
      next.dict = c.keyAfter.get(after.dict, idStep - 1) || LAST_ID
      c.copyKeys.run(after.dict, next.dict)
    }
    if (upkeep.roundDone(next)) setCopied.run(generation, null, null, null, null)
    else setCopied.run(generation - 1, ...next.terms, next.ids, next.dict)
    return next
  }
  const copiedSoFar = db.prepare('SELECT copied_term, copied_seq, copied_id, copied_key FROM idx.index_copy').raw()
  const setCopied = db.prepare('UPDATE idx.index_copy SET generation = ?, copied_term = ?, copied_seq = ?, copied_id = ?, copied_key = ?')
  // where the copy of the full recent buffer goes on from
  function copiedAfter () {
    const [term, seq, id, key] = copiedSoFar.get()
    const blob = (b) => b === null ? FIRST_ID : LAST_ID.equals(b) ? LAST_ID : b
    return {
      terms: term === null ? FIRST_TERM : term === LAST_TERM[0] ? LAST_TERM : [term, seq],
      ids: blob(id),
      dict: blob(key)
    }
  }

  const upkeep = {
    levels: BIG, // the levels that are merged into another
    // the statements in level `level` (below the big one); of the recent
    // level, in the full buffer while it waits to be copied, else none
    statementsIn (level) {
      if (level > 0) return levelCount.get(level) || 0
      const [taking, generation] = switchState.get()
      return copiedThrough.get() < generation ? Math.max(1, copiers[1 - taking].count.get()) : 0
    },
    // A round of level `level` into the next in about `slices` slices;
    // null when there is nothing to move. `after`: the last keys moved.
    // (The recent level's round has no cap: copySlice reads where the copy
    // has got from the index file.)
    startRound (level, slices, statements) {
      const seqCap = level === 0 ? null : movers[level].newest.get()
      if (level > 0 && seqCap === null) return null
      const idStep = Math.max(1, Math.ceil(statements / slices))
      return { level, seqCap, idStep, termStep: idStep * TERM_ROWS_PER_STATEMENT, after: { terms: FIRST_TERM, ids: FIRST_ID, dict: FIRST_ID } }
    },
    // Moves the next slice of `round`, inside the caller's transaction.
    // Returns the `after` of the round once it has committed, for the
    // caller to set then (a slice undone is moved again).
    mergeSlice (round) {
      if (round.level === 0) return copySlice(round)
      const { level, seqCap, idStep, termStep, after } = round
      const m = movers[level]
      const next = { ...after }
      if (after.terms !== LAST_TERM) {
        next.terms = m.termAfter.get(...after.terms, termStep - 1) || LAST_TERM
        m.moveTerms.run(...after.terms, ...next.terms, seqCap)
        m.dropTerms.run(...after.terms, ...next.terms, seqCap)
      }
      if (after.ids !== LAST_ID) {
        next.ids = m.idAfter.get(after.ids, idStep - 1) || LAST_ID
        const moved = m.moveIds.run(after.ids, next.ids, seqCap).changes
        m.dropIds.run(after.ids, next.ids, seqCap)
        countInLevel(level, -moved)
        countInLevel(level + 1, moved)
      }
      if (after.dict !== LAST_ID) {
        next.dict = m.keyAfter.get(after.dict, idStep - 1) || LAST_ID
        m.moveKeys.run(after.dict, next.dict)
        m.dropKeys.run(after.dict, next.dict)
      }
      return next
    },
    // whether a round that has got to `after` has moved everything
    roundDone: (after) => after.terms === LAST_TERM && after.ids === LAST_ID && after.dict === LAST_ID
  }

  return { upkeep, recent, activeRecent, countInLevel, levelOfTable }
}

module.exports = { indexMerges }
