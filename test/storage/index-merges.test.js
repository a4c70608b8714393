'use strict'

// SQLite: new index rows go to small recent tables and are merged level by
// level into the big ones in bulk (schema.js). With merges after every few statements and
// two writers on one file, every statement stays findable by id and by
// each filter, in stored order, ids stay unique, and voiding, erasure and
// conflicts see rows on either side of a merge.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, ENGINE } = require('../helpers/lrs')
const { statement, allIds } = require('../helpers/statements')
const { openDatabase } = require('../../src/storage/sqlite/open')

const q = (value) => encodeURIComponent(JSON.stringify(value))
const ATTEMPTED = { id: 'http://adlnet.gov/expapi/verbs/attempted', display: { 'en-US': 'attempted' } }


test('statements stay findable, unique and voidable across index merges by two writers', { skip: ENGINE !== 'sqlite' && 'the sqlite engine' }, async () => {
  const hooks = { mergeStatements: 4, middleStatements: 8, levelRatio: 2 }
  const a = await startLrs({}, { hooks })
  const b = await startLrs({ ...a.storeEnv }, { hooks })
  const learner = { objectType: 'Agent', mbox: `mailto:merge-${crypto.randomUUID()}@example.com` }
  const registration = crypto.randomUUID()
  const posted = []
  // Rows pass through each level on their way to the big tables: which
  // levels held some after a request (a level may be empty at a given
  // moment, its rows moved on and the next round's not in yet).
  const file = openDatabase(a.storeEnv.LRS_DATA_DIR, { readonly: true })
  const count = (table) => file.prepare(`SELECT count(*) FROM ${table}`).pluck().get()
  const levels = ['middle', 'level2', 'level3', 'statement']
  const held = new Set()
  for (let i = 0; i < 50; i++) {
    const batch = Array.from({ length: 4 }, (_, k) => statement({ id: crypto.randomUUID(), ...(k % 2 ? { actor: learner } : {}), ...((i + k) % 3 ? {} : { verb: ATTEMPTED }), context: { registration } }))
    const res = await (i % 2 ? b : a).client('/statements', { method: 'POST', body: batch })
    assert.equal(res.status, 200)
    posted.push(...batch)
    for (const level of levels) if (count(`${level}_ids`) && count(`${level}_terms`)) held.add(level)
  }
  // every term row, wherever merges took it, carries its statement's verb (schema.js, VERB_IN_TERM_ROWS)
  const withoutVerb = ['recent', 'recent2', ...levels].reduce((n, level) => n + file.prepare(`SELECT count(*) FROM ${level}_terms WHERE verb IS NULL`).pluck().get(), 0)
  file.close()
  assert.deepEqual(levels.filter((level) => !held.has(level)), [], 'every level held ids and term rows')
  assert.equal(withoutVerb, 0, 'term rows without their verb')

  // by id, on either worker; a taken id with another statement is a conflict
  for (const s of posted) assert.equal((await b.client(`/statements?statementId=${s.id}`)).json.id, s.id)
  assert.equal((await a.client('/statements', { method: 'POST', body: { ...posted[0], verb: { id: 'http://example.com/other' } } })).status, 409)
  assert.equal((await b.client('/statements', { method: 'POST', body: posted[1] })).status, 200) // the same statement again

  // by each filter, newest first, each statement once
  const newestFirst = posted.map((s) => s.id).reverse()
  assert.deepEqual(await allIds(a, `registration=${registration}`), newestFirst)
  const his = posted.filter((s) => s.actor === learner).map((s) => s.id).reverse()
  assert.deepEqual(await allIds(b, `agent=${q(learner)}`), his)
  assert.deepEqual(await allIds(a, `agent=${q(learner)}&registration=${registration}&ascending=true`), [...his].reverse())
  // a verb checked on the rows of another filter, in every level
  const attempted = (s) => s.verb.id === ATTEMPTED.id
  assert.deepEqual(await allIds(b, `agent=${q(learner)}&verb=${encodeURIComponent(ATTEMPTED.id)}`), posted.filter((s) => s.actor === learner && attempted(s)).map((s) => s.id).reverse())
  assert.deepEqual(await allIds(a, `registration=${registration}&verb=${encodeURIComponent(statement().verb.id)}`), posted.filter((s) => !attempted(s)).map((s) => s.id).reverse())

  // voiding a merged statement, then erasure of the learner
  const voiding = statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: posted[1].id } })
  assert.equal((await b.client('/statements', { method: 'POST', body: voiding })).status, 200)
  assert.equal((await a.client(`/statements?statementId=${posted[1].id}`)).status, 404)
  assert.equal((await a.client(`/statements?voidedStatementId=${posted[1].id}`)).json.id, posted[1].id)
  const erased = await a.http(`/admin/agents?agent=${q(learner)}`, { method: 'DELETE' })
  assert.equal(erased.status, 200, erased.text)
  assert.equal(erased.json.removed.statements, his.length)
  assert.deepEqual(await allIds(b, `agent=${q(learner)}`), [])
  assert.equal((await b.client(`/statements?statementId=${his[0]}`)).status, 404)
  assert.deepEqual(await allIds(b, `registration=${registration}`), newestFirst.filter((id) => !his.includes(id)))
})
