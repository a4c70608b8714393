'use strict'

// Opens the database file with the settings every connection needs.
//
// Durability: WAL journal with synchronous=FULL. A transaction is durable
// once COMMIT returns: the WAL is fsynced at every commit, so an
// acknowledged write survives a crash of the LRS, of the machine, or a
// power cut (NORMAL would survive only a crash of the process). The write
// path commits from the writer (writer-loop.js: the host's writer process
// under PM2, a thread otherwise), so the fsync never holds up a worker's
// event loop, and groups many requests into one commit.

const fs = require('node:fs')
const path = require('node:path')
const Database = require('better-sqlite3')
const { StartupError } = require('../../errors')
const { addTermKeyFunction } = require('./terms')

const FILE_NAME = 'lrs.sqlite'
// The index levels above the recent one (schema.js, UPPER_LEVELS), in a
// file of their own, attached to every connection as `idx`: one SQLite
// file has one writer at a time, and the merges of those levels take a
// third of what the writer of the statements would spend (index-merges.js:
// the merge thread writes this file, the writer the other).
const INDEX_FILE_NAME = 'lrs-index.sqlite'
// 16 KiB pages hold seven 2 KB statements where 4 KiB pages hold one (a
// second does not fit): 41 % less disk for the same rows (measured: 2,540
// against 4,310 bytes per statement), at the same insert rate (filling to
// 400,000 statements: 5,800 -> 3,800 st/s with 16 KiB, 5,300 -> 4,200
// with 4 KiB, within this machine's noise).
const PAGE_SIZE = 16384
const MMAP_BYTES = 2 ** 31

function databaseFile (dataDir) {
  return path.join(dataDir, FILE_NAME)
}

function indexFile (dataDir) {
  return path.join(dataDir, INDEX_FILE_NAME)
}

// `readonly`: for a look at a store that exists (tests, benchmarks); both
// files must be there.
function openDatabase (dataDir, { busyTimeoutMs = 5000, readonly = false } = {}) {
  const file = databaseFile(dataDir)
  let db
  try {
    if (!readonly) fs.mkdirSync(dataDir, { recursive: true })
    db = new Database(file, { readonly, fileMustExist: readonly })
    if (!readonly) {
      db.pragma(`page_size = ${PAGE_SIZE}`) // a new file only; kept by an existing one
      db.pragma('journal_mode = WAL') // the first read of the file: a damaged header fails here
    }
  } catch (err) {
    throw storeProblem(file, err)
  }
  const index = indexFile(dataDir)
  try {
    if (readonly && !fs.existsSync(index)) throw Object.assign(new Error(`${index} does not exist`), { code: 'SQLITE_CANTOPEN' })
    db.prepare('ATTACH DATABASE ? AS idx').run(index) // opened as the main file is: read-only with it
    if (!readonly) {
      db.pragma(`idx.page_size = ${PAGE_SIZE}`)
      db.pragma('idx.journal_mode = WAL')
    }
  } catch (err) {
    db.close()
    throw storeProblem(index, err)
  }
  if (!readonly) {
    db.pragma('synchronous = FULL')
    db.pragma('idx.synchronous = FULL')
  }
  addTermKeyFunction(db) // schema.js, TERM_DICTIONARY
  db.pragma(`busy_timeout = ${busyTimeoutMs}`)
  db.pragma('cache_size = -65536') // 64 MiB of page cache per connection and file
  db.pragma('idx.cache_size = -65536')
  db.pragma('temp_store = MEMORY')
  // In WAL mode a connection drops its whole page cache whenever another
  // connection has committed, and every worker's writer and reader is
  // another connection: without a map, each transaction reads the index
  // pages it walks again through read() calls. Mapped, they are a pointer
  // into the OS page cache. (SQLite caps the size at about 2 GiB.)
  db.pragma(`mmap_size = ${MMAP_BYTES}`)
  db.pragma(`idx.mmap_size = ${MMAP_BYTES}`)
  db.defaultSafeIntegers(false)
  return db
}

// A store that cannot be opened, or whose schema cannot be read, stops the
// start with what is wrong and what to do, naming the file; restarting
// would not mend it. Other errors are left as they are.
function storeProblem (file, err) {
  const code = String(err && err.code)
  if (/^SQLITE_(NOTADB|CORRUPT)/.test(code) && path.basename(file) === INDEX_FILE_NAME) {
    return new StartupError(`the SQLite index file ${file} is damaged (${err.message}): remove it (with its -wal and -shm files); the LRS builds it again from the statements when it starts (docs/operations.md)`, { cause: err })
  }
  if (/^SQLITE_(NOTADB|CORRUPT)/.test(code)) {
    return new StartupError(`the SQLite store ${file} is damaged (${err.message}): restore it from a backup (docs/operations.md), or move it away to start an empty store`, { cause: err })
  }
  if (/^SQLITE_(CANTOPEN|PERM|READONLY|AUTH)/.test(code) || ['EACCES', 'EPERM', 'EROFS', 'ENOTDIR'].includes(code)) {
    return new StartupError(`the SQLite store ${file} cannot be opened (${err.message}): check that LRS_DATA_DIR is a folder this user may read and write`, { cause: err })
  }
  return err
}

module.exports = { openDatabase, databaseFile, indexFile, storeProblem }
