'use strict'

// Stores are kept apart by their keys. What identifies a store's data
// everywhere (a statement id and a StatementRef's target, an attachment's
// hash, a document's scope and agent) reaches storage qualified with its
// store's number, `s<n>|<value>`: an id lookup, a voiding, a StatementRef,
// an attachment or a document of one store finds nothing of another, and
// the same statement id may be stored in both, as in two LRSs. The default
// store (number 0) has no prefix, so a store written before stores is the
// default store as it is, with nothing to rewrite. No unqualified value can
// carry a prefix: ids and hashes are hex, and a document's agent key
// starts with its kind and a colon.
//
// The query fields (agents, activities, verb, registration, authority) go
// to storage as they are, with the record's or the query's `store`: each
// engine keeps them apart its own way (src/storage/: SQLite's term ids per
// store, MongoDB's qualified values), as it does a store's statements as a
// whole (an unfiltered query, an export).

const DEFAULT_STORE = 0
const STORE_PREFIX = /^s(\d+)\|/

function qualify (store, value) {
  return store && value !== null && value !== undefined ? `s${store}|${value}` : value
}

function unqualify (value) {
  return typeof value === 'string' ? value.replace(STORE_PREFIX, '') : value
}

// The store of a qualified value.
function storeOf (value) {
  const m = STORE_PREFIX.exec(value)
  return m ? Number(m[1]) : DEFAULT_STORE
}

const qualifyAll = (store, list) => store ? list.map((v) => qualify(store, v)) : list

// A record of the write path (statement-record.js) as storage keeps it
// in `store`: its id, its StatementRef target and its attachments'
// hashes qualified, `store` set, in place (records are made for this one
// write; the caller keeps what it answers with first). A copy cost a
// worker about 6 us a statement, and storage's reads of the copy (terms,
// packing) 6 more: its shape was not the one every other record has.
function storageRecord (record, store) {
  record.store = store || DEFAULT_STORE
  if (!store) return record
  record.id = qualify(store, record.id)
  record.ref = qualify(store, record.ref)
  record.attachments = qualifyAll(store, record.attachments)
  return record
}

// The fields of a statement query (src/storage/statement-query.js) in
// `store`: the store set, the ids qualified.
function storageQueryFields (fields, store) {
  const out = { ...fields, store: store || DEFAULT_STORE }
  if (store && fields.orIds) out.orIds = qualifyAll(store, fields.orIds)
  return out
}

// A deleted store keeps its record under '#<number>|<id>' (no store id
// starts with '#'), which frees its id at once; formerId gives the id back.
const deletedId = (number, id) => `#${number}|${id}`
const formerId = (id) => id.replace(/^#\d+\|/, '')

// The bounds of the strings that start with `prefix`, one ending in '|'
// (a store's keys, 's<n>|', or its upstreams'): from it, up to and not
// including the same with '}', the character after '|'.
function prefixBounds (prefix) {
  return [prefix, prefix.slice(0, -1) + '}']
}

module.exports = { prefixBounds, deletedId, formerId, DEFAULT_STORE, STORE_PREFIX, qualify, unqualify, storeOf, qualifyAll, storageRecord, storageQueryFields }
