'use strict'

// SQLite's automatic checkpoints copy the WAL into the database but can
// start the WAL over only at a moment when no reader uses it, which never
// comes while workers write and read without pause: measured, the WAL grew
// to 964 MB in a minute of ingest. So past the WAL limit the writer of a
// file (the writer loop for lrs.sqlite, the merge thread for the index
// file) asks for a TRUNCATE checkpoint after its commit, waiting at most
// CHECKPOINT_WAIT_MS for readers and other writers to let go; if they do
// not, the next commit tries again. (Waiting 500 ms instead emptied the
// WAL as well but tripled the soak's P99.)

const fs = require('node:fs')

const DEFAULT_WAL_LIMIT_BYTES = 64 * 1024 * 1024
const CHECKPOINT_WAIT_MS = 20

// `schema`: the file of `db` ('main', or 'idx' for the index file) whose
// WAL is `walFile`. Returns checkpointIfLarge().
function walBound (db, { schema, walFile, limitBytes = DEFAULT_WAL_LIMIT_BYTES }) {
  function walBytes () {
    try {
      return fs.statSync(walFile).size
    } catch {
      return 0
    }
  }
  return function checkpointIfLarge () {
    if (walBytes() < limitBytes) return
    db.pragma(`busy_timeout = ${CHECKPOINT_WAIT_MS}`)
    try {
      db.pragma(`${schema}.wal_checkpoint(TRUNCATE)`)
    } catch {
      // busy: after the next commit
    } finally {
      db.pragma('busy_timeout = 0')
    }
  }
}

module.exports = { walBound }
