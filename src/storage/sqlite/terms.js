'use strict'

// Terms: what a statement can be found by (see schema.js), as strings
//   a:<agent>     an agent of the actor or object (`agent`)
//   r:<agent>     another related agent (`related_agents`), authority aside
//   u:<agent>     the authority (`related_agents`, statements/read/mine)
//   o:<activity>  the object Activity (`activity`)
//   c:<activity>  another related Activity (`related_activities`)
//   v:<verb>      g:<registration>
//   s:            the store, for a statement of any store but the default
//                 one (store-terms.js: how its term ids are its store's)
// and the integer ids the `terms` table gives them. An <agent> is a hash
// of the agent's identifier: the dictionary outlives the statements (its
// ids are cached by every worker), so it must not keep a learner's email
// address after that learner's statements are erased.

const crypto = require('node:crypto')
const { BoundedMap } = require('../../lib/bounded-map')
const { STORE_TERM } = require('./store-terms')

const CACHED_TERMS = 200000

const hashes = new BoundedMap(CACHED_TERMS)

function hashedAgent (key) {
  let hash = hashes.get(key)
  if (hash === undefined) {
    hash = crypto.createHash('sha256').update(key).digest('base64url').slice(0, 24)
    hashes.set(key, hash)
  }
  return hash
}

// kind: 'a' | 'r' | 'u'
function agentTerm (kind, key) {
  return kind + ':' + hashedAgent(key)
}

// `all` starts with the verb, the authority and the registration (when
// there is one), so the writer looks each term up once (write-statements.js,
// termIdsOf).
function termsOf (record) {
  const agents = new Set(record.agents)
  const activities = new Set(record.activities)
  const out = {
    verb: 'v:' + record.verb,
    authority: agentTerm('u', record.authorityKey),
    registration: record.registration ? 'g:' + record.registration : null,
    all: []
  }
  out.all.push(out.verb, out.authority)
  if (out.registration) out.all.push(out.registration)
  for (const a of agents) out.all.push(agentTerm('a', a))
  for (const a of record.relAgents) if (!agents.has(a) && a !== record.authorityKey) out.all.push(agentTerm('r', a))
  for (const a of activities) out.all.push('o:' + a)
  for (const a of record.relActivities) if (!activities.has(a)) out.all.push('c:' + a)
  if (record.store) out.all.push(STORE_TERM)
  return out
}

// The terms a query filter stands for: one for a plain filter, several
// (any of them matches) for the related_* forms.
function agentTerms (agent, related) {
  return related ? ['a', 'r', 'u'].map((kind) => agentTerm(kind, agent)) : [agentTerm('a', agent)]
}

function activityTerms (activity, related) {
  return related ? ['o:' + activity, 'c:' + activity] : ['o:' + activity]
}

// The dictionary's key of a term: the first 16 bytes of its SHA-256, the
// same length whatever the term (an activity IRI may be 2,048 characters),
// so a page holds hundreds. Two of ten million terms share one with a
// chance of about 10^-25. Registered as term_key() in SQL (open.js).
function termKey (term) {
  return crypto.createHash('sha256').update(term).digest().subarray(0, 16)
}

// term_key(term) in SQL, on every connection that builds or checks the
// dictionary (open.js; check.js opens its own).
function addTermKeyFunction (db) {
  db.function('term_key', { deterministic: true }, termKey)
}

// The term -> id dictionary is kept in levels, as the index is (schema.js,
// DICT_TABLES): a term's id is found by its key in any level, newest
// first; ids and strings stay in `terms`, appended in id order.
const findSql = (tables) => `SELECT id FROM (${tables.map((t) => `SELECT id FROM ${t} WHERE key = @key`).join(' UNION ALL ')}) LIMIT 1`

// Term ids as the writer assigns them: a new term takes the next id (the
// largest in `terms` + 1, read at the start of each transaction, as a
// writer beside this one may have added terms), its row is appended to
// `terms` and its key goes to the recent dictionary buffer that takes rows
// (`active()`): no insert lands in the middle of a large b-tree, which
// with a new registration for every statement made every commit rewrite
// one page of the dictionary's index per new term. New ids are kept only
// once their transaction commits (`commit()`), since a rolled-back one
// may be reused.
function termWriter (db, { dictTables, recentDicts, active }) {
  const known = new BoundedMap(CACHED_TERMS)
  const added = new Map()
  const find = db.prepare(findSql(dictTables)).pluck()
  const largest = db.prepare('SELECT max(id) FROM terms').pluck()
  const insertTerm = db.prepare('INSERT INTO terms (id, term) VALUES (?, ?)')
  const insertKey = recentDicts.map((table) => db.prepare(`INSERT INTO ${table} (key, id) VALUES (?, ?)`))
  let next = null
  const readNext = () => { next = (largest.get() || 0) + 1 }
  return {
    began: readNext,
    // `term`: its string, or its id where the sender knew it (statements.js, forWriter)
    id (term) {
      if (typeof term === 'number') return term
      let id = known.get(term) || added.get(term)
      if (id) return id
      const key = termKey(term)
      id = find.get({ key })
      if (id === undefined) {
        if (next === null) readNext()
        id = next++
        insertTerm.run(id, term)
        insertKey[active()].run(key, id)
      }
      added.set(term, id)
      return id
    },
    // Where an operation's new terms begin, and dropping them when its
    // savepoint is undone: the rows are gone, and their ids are given
    // again to other terms.
    mark: () => added.size,
    dropFrom (at) {
      let i = 0
      for (const term of [...added.keys()]) if (i++ >= at) added.delete(term)
      readNext()
    },
    commit () {
      for (const [term, id] of added) known.set(term, id)
      added.clear()
    },
    rollback () {
      added.clear()
      next = null
    }
  }
}

// Term ids as readers look them up: a term nobody stored has no id (and
// matches nothing); found ids never change, so they are kept.
function termReader (db, { dictTables }) {
  const known = new BoundedMap(CACHED_TERMS)
  const find = db.prepare(findSql(dictTables)).pluck()
  return function termId (term) {
    let id = known.get(term)
    if (id) return id
    id = find.get({ key: termKey(term) })
    if (id !== undefined) known.set(term, id)
    return id
  }
}

module.exports = { termsOf, agentTerm, hashedAgent, agentTerms, activityTerms, termKey, addTermKeyFunction, termWriter, termReader, CACHED_TERMS }
