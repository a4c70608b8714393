'use strict'

// A store's terms (src/stores/store-keys.js). The dictionary (terms.js) is
// shared by every store: a term is one string and one id whichever stores
// use it. What a statement of store n > 0 is found by is its term ids made
// its store's, -(id * STORE_SPAN + n): its index rows, the registration and
// authority of its row, its hourly counts. (The verb that rows carry, and
// the statement row's, stays the dictionary's: it is checked on rows that
// are the store's already, and a row is smaller for it.) No two stores share a term
// row, a query of one store never meets another's rows, and the default
// store's ids are the dictionary's own, as before stores. (Qualifying the
// term strings instead made each store's terms new to the dictionary: with
// learners and a catalogue per store, spread over 100 stores, ingest fell
// to 0.80 of one store's in the same run, bench/stores.js, 2-core VM.)
//
// A statement of any store but the default one also has the store term,
// STORE_TERM, which an unfiltered query of the store walks and the hourly
// counters count.
//
// The default store's statements need no term while it is the only store:
// its unfiltered query walks the statements table. Beside other stores that
// walk steps over theirs (a default store of 10,000 statements older than a
// store of 300,000: 100 ms a page, growing with the other store). So from
// the first other store on, a default store's statement gets the term too,
// as the dictionary's id (plain, positive): the setting DEFAULT_TERM_FROM
// keeps the last seq before it, written with the first store, and the
// query walks the term's rows above it and the table at or below it
// (statement-sql.js). An LRS with one store pays nothing; giving every
// statement of every LRS a term (or a partial index on store IS NULL)
// cost the writer 3 us a statement (writer-feed, 2-core VM).

// Stores 1 to 2,047. A store's term id takes 11 bits more than the
// dictionary's, and SQLite writes integers in 1, 2, 3, 4, 6 or 8 bytes: up
// to a million terms, a store's ids still fit in 4 (65,536 stores made
// them 6, a quarter more bytes in every index row of a store).
const STORE_SPAN = 2048
const STORE_TERM = 's:'
const DEFAULT_TERM_FROM = 'default_store_term_from'

function termIn (store, id) {
  return store && id !== undefined ? -(id * STORE_SPAN + store) : id
}

// The dictionary's id of a term id of any store.
function plainTermId (id) {
  return id < 0 ? Math.floor(-id / STORE_SPAN) : id
}

function storeOfTermId (id) {
  return id < 0 ? -id % STORE_SPAN : 0
}

// `termId(term)` (terms.js, termReader) for the terms of `store`.
function storeTermReader (termId, store) {
  return store ? (term) => termIn(store, termId(term)) : termId
}

// The setting DEFAULT_TERM_FROM as a reader: a seq, or null while the
// default store's statements have no store term.
function defaultTermFromReader (db) {
  const read = db.prepare(`SELECT value FROM settings WHERE name = '${DEFAULT_TERM_FROM}'`).pluck()
  return () => {
    const value = read.get()
    return value === undefined ? null : Number(value)
  }
}

module.exports = { STORE_SPAN, STORE_TERM, DEFAULT_TERM_FROM, defaultTermFromReader, termIn, plainTermId, storeOfTermId, storeTermReader }
