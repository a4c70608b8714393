'use strict'

// The merge thread's loop (merge-thread.js): rounds that copy the full
// recent buffer into the middle level and merge each level into the next
// (index-merges.js), one slice per transaction, each writing the index
// file only. The copy goes first, the levels above take turns; with
// nothing to do it waits for the writer's word ('wake', after a switch of
// the recent buffers) or IDLE_MS.

const { openDatabase, indexFile } = require('./open')
const { indexMerges } = require('./index-merges')
const { errorOf } = require('./writer-errors')
const { walBound } = require('./wal-bound')

// Each level after the recent one is merged into the next once it holds
// LEVEL_RATIO times the statements of the level before (`middleStatements`
// for the middle one). A slice moves about SLICE_STATEMENTS statements
// (RECENT_SLICE_STATEMENTS out of the recent level). The pages of the next
// level in its key range are what a slice rewrites; a slice holds the
// index file's write lock, which only the writer's erasures and restamps
// wait for.
const LEVEL_RATIO = 16
const RECENT_SLICE_STATEMENTS = 1024
const SLICE_STATEMENTS = 4096
const IDLE_MS = 200
// After a merge fails (a full disk, an I/O error), the next try waits
// FAILED_PAUSE_MS, and the failure is logged at most once per WARN_EVERY_MS.
const FAILED_PAUSE_MS = 5000
const WARN_EVERY_MS = 60000
// A merge into a level of millions reads and rewrites pages that the
// memory map does not cover (writer-loop.js, ONE_WRITER_CACHE_KIB).
const CACHE_KIB = 256 * 1024

// `copied()`: a full recent buffer has been copied whole (the writer may
// empty it).
function createMergeLoop ({ dataDir, mergeStatements, middleStatements, levelRatio = LEVEL_RATIO }, { warn, copied }) {
  const db = openDatabase(dataDir, { busyTimeoutMs: 0 })
  db.pragma(`idx.cache_size = -${CACHE_KIB}`)
  const checkpointIfLarge = walBound(db, { schema: 'idx', walFile: indexFile(dataDir) + '-wal' })
  const { upkeep } = indexMerges(db)
  // Takes the index file's write lock first, so that the slice reads the
  // recent buffer and the copy's position as they are while it holds it.
  const lockIndex = db.prepare('UPDATE idx.index_copy SET only = only WHERE 0')
  const middleAt = middleStatements || 16 * mergeStatements
  const thresholds = new Array(upkeep.levels).fill(0).map((_, level) => level === 0 ? 1 : middleAt * levelRatio ** (level - 1))
  const slicesOf = (level) => level === 0 ? Math.ceil(mergeStatements / RECENT_SLICE_STATEMENTS) : Math.ceil(thresholds[level] / SLICE_STATEMENTS)
  const rounds = new Array(upkeep.levels).fill(null)
  let turn = 0
  let timer = null
  let idle = false // timer is a wait, not an immediate
  let failed = false // the last slice failed: wait FAILED_PAUSE_MS
  let warnedAt = -Infinity
  function warnSometimes (message, err) {
    failed = true
    if (Date.now() - warnedAt < WARN_EVERY_MS) return
    warnedAt = Date.now()
    warn(message, errorOf(err))
  }
  let closed = false

  function startRound (level) {
    if (rounds[level]) return
    const statements = upkeep.statementsIn(level)
    if (statements >= thresholds[level]) rounds[level] = upkeep.startRound(level, slicesOf(level), statements)
  }

  // The copy of the full recent buffer first: until it is done the writer
  // cannot switch again, and the buffer taking rows grows past its size
  // (each commit then rewrites more of its pages). The levels above take
  // turns.
  function nextRound () {
    if (rounds[0]) return rounds[0]
    for (let k = 0; k < rounds.length; k++) {
      turn = (turn + 1) % rounds.length
      if (rounds[turn]) return rounds[turn]
    }
    return null
  }

  // One slice of some round; false when there was none to move.
  function step () {
    for (let level = 0; level < rounds.length; level++) startRound(level)
    const round = nextRound()
    if (!round) return false
    try {
      db.exec('BEGIN')
      lockIndex.run()
      const after = upkeep.mergeSlice(round)
      db.exec('COMMIT')
      round.after = after
      if (upkeep.roundDone(after)) {
        rounds[round.level] = null
        if (round.level === 0) copied()
      }
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK')
      if (!/^SQLITE_BUSY/.test(err.code)) {
        rounds[round.level] = null
        warnSometimes('SQLite index merge failed; new index rows stay where they are until a merge succeeds', err)
      }
      return false
    }
    return true
  }

  function run () {
    timer = null
    if (closed) return
    let worked = false
    try {
      worked = step()
      if (worked) checkpointIfLarge()
    } catch (err) {
      warnSometimes('SQLite index merges stopped for a while', err)
    }
    idle = !worked
    timer = worked ? setImmediate(run) : setTimeout(run, failed ? FAILED_PAUSE_MS : IDLE_MS)
    failed = false
  }
  timer = setImmediate(run)

  return {
    wake () {
      if (closed || !idle) return
      clearTimeout(timer)
      idle = false
      timer = setImmediate(run)
    },
    close () {
      closed = true
      if (idle) clearTimeout(timer)
      else clearImmediate(timer)
      db.close()
    }
  }
}

module.exports = { createMergeLoop }
