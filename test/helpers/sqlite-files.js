'use strict'

// SQLite stores as older versions of the LRS left them, for the upgrade
// tests, and as a crash between the two files' commits leaves them.

const fs = require('node:fs')
const Database = require('better-sqlite3')
const { databaseFile, indexFile, openDatabase } = require('../../src/storage/sqlite/open')
const { UPPER_LEVELS, RECENT_BUFFERS, TERM_TABLES, MBOX_CASE } = require('../../src/storage/sqlite/schema')
const { STORE_TERM, DEFAULT_TERM_FROM } = require('../../src/storage/sqlite/store-terms')
const { writeOps } = require('../../src/storage/sqlite/write-ops')

// As schema 9 and older kept the term dictionary: `terms` with a UNIQUE
// index on its strings, no dictionary levels.
function termsAsBefore10 (db, { indexFile: inIndexFile }) {
  for (const buffer of RECENT_BUFFERS) db.exec(`DROP TABLE main.${buffer.dict}`)
  if (inIndexFile) for (const level of UPPER_LEVELS) db.exec(`DROP TABLE idx.${level.dict}`)
  db.exec(`ALTER TABLE terms RENAME TO terms_v10;
    CREATE TABLE terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE);
    INSERT INTO terms SELECT * FROM terms_v10; DROP TABLE terms_v10;`)
}

// As schema 11 kept it, before stores could be deleted: documents without
// their store, stores without deletion and retention, no purge journal.
function asBefore12 (db) {
  db.exec(`DROP INDEX documents_store; ALTER TABLE documents DROP COLUMN store; ALTER TABLE index_journal DROP COLUMN purge;
    ALTER TABLE stores DROP COLUMN deleted_at; ALTER TABLE stores DROP COLUMN purged_at;
    ALTER TABLE stores DROP COLUMN purge_terms; ALTER TABLE stores DROP COLUMN retention_days`)
}

// As schema 10 kept it, before stores: no stores table, no store
// columns (every statement and credential the default store's).
function storesAsBefore11 (db) {
  asBefore12(db)
  // the targeted statements were indexed by seq alone before stores
  db.exec(`DROP INDEX statements_referenced_by_store; CREATE INDEX statements_referenced ON statements (seq) WHERE referenced = 1;
    DROP TABLE stores; ALTER TABLE statements DROP COLUMN store; ALTER TABLE credentials DROP COLUMN store`)
}

// The store of a stopped LRS as schema 11 left it; returns it open.
function asSchema11 (dataDir) {
  const db = openDatabase(dataDir)
  asBefore12(db)
  db.pragma('user_version = 11')
  return db
}

// The store of a stopped LRS as schema 10 left it; returns it open.
function asSchema10 (dataDir) {
  const db = openDatabase(dataDir)
  storesAsBefore11(db)
  db.pragma('user_version = 10')
  return db
}

function asSchema9 (dataDir) {
  const db = openDatabase(dataDir)
  storesAsBefore11(db)
  termsAsBefore10(db, { indexFile: true })
  db.exec('ALTER TABLE idx.index_copy DROP COLUMN copied_key')
  db.pragma('user_version = 9')
  return db
}

// The store of a stopped LRS back in one file, as schema 8 kept it: the
// index levels of the index file in the database file, how far a copy of
// the full recent buffer has got in index_recent; the index file removed.
// Returns the database file, open, for more of an older schema.
function asOneFile (dataDir) {
  const db = openDatabase(dataDir)
  for (const level of UPPER_LEVELS) {
    for (const table of [level.terms, level.ids]) {
      const sql = db.prepare('SELECT sql FROM idx.sqlite_master WHERE name = ?').pluck().get(table)
      db.exec(`${sql.replace(table, 'main.' + table)}; INSERT INTO main.${table} SELECT * FROM idx.${table};`)
    }
  }
  storesAsBefore11(db)
  termsAsBefore10(db, { indexFile: false })
  const copy = db.prepare('SELECT copied_term, copied_seq, copied_id FROM idx.index_copy').get()
  db.exec(`CREATE TABLE main.index_levels (level INTEGER PRIMARY KEY, statements INTEGER NOT NULL);
    INSERT INTO main.index_levels SELECT * FROM idx.index_levels;
    DROP TABLE main.index_journal;
    ALTER TABLE index_recent DROP COLUMN generation;
    ALTER TABLE index_recent ADD COLUMN copied_term INTEGER; ALTER TABLE index_recent ADD COLUMN copied_seq INTEGER; ALTER TABLE index_recent ADD COLUMN copied_id BLOB;`)
  db.prepare('UPDATE index_recent SET copied_term = ?, copied_seq = ?, copied_id = ?').run(copy.copied_term, copy.copied_seq, copy.copied_id)
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(indexFile(dataDir) + suffix, { force: true })
  const one = new Database(databaseFile(dataDir))
  one.pragma('user_version = 8')
  return one
}

// Runs `write(ops)` (the writer's operations) in one transaction on the
// store of a stopped LRS, then puts the index file back as it was before:
// as if its commit had been lost (the database file commits first).
// Returns what `write` returned.
function withIndexCommitLost (dataDir, write) {
  const before = openDatabase(dataDir)
  before.pragma('wal_checkpoint(TRUNCATE)')
  before.close()
  const saved = fs.readFileSync(indexFile(dataDir))
  const db = openDatabase(dataDir)
  const writer = writeOps(db)
  db.exec('BEGIN IMMEDIATE')
  writer.began()
  const result = write(writer.ops)
  db.exec('COMMIT')
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(indexFile(dataDir) + suffix, { force: true })
  fs.writeFileSync(indexFile(dataDir), saved)
  return result
}

// As schema 12 left a store that had other stores, before the default
// store's statements got the store term (store-terms.js): the default store's statements without the
// term, no DEFAULT_TERM_FROM. Returns it open.
function withoutDefaultStoreTerm (dataDir) {
  const db = openDatabase(dataDir)
  const id = db.prepare('SELECT id FROM terms WHERE term = ?').pluck().get(STORE_TERM)
  db.prepare('DELETE FROM settings WHERE name = ?').run(DEFAULT_TERM_FROM)
  for (const table of TERM_TABLES) db.prepare(`DELETE FROM ${table} WHERE term = ?`).run(id)
  db.prepare('DELETE FROM hourly_terms WHERE term = ?').run(id)
  db.prepare('UPDATE statements SET term_ids = (SELECT json_group_array(value) FROM json_each(statements.term_ids) WHERE value != ?) WHERE store IS NULL').run(id)
  db.pragma('user_version = 12')
  return db
}

// As schema 13 left a store: no word on how it keys mboxes (it lower-cased
// the whole address). Returns it open.
function asSchema13 (dataDir) {
  const db = openDatabase(dataDir)
  db.prepare('DELETE FROM settings WHERE name = ?').run(MBOX_CASE)
  db.pragma('user_version = 13')
  return db
}

module.exports = { asOneFile, asSchema9, asSchema10, asSchema11, asSchema13, withIndexCommitLost, withoutDefaultStoreTerm }
