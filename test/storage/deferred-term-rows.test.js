'use strict'

// The SQLite writer inserts the (term, seq) index rows of a transaction's
// statements at its end, in one sort (write-ops.js). Operations that move
// or remove index rows in the same transaction (Consistent-Through's
// restamp, agent erasure) must see them: here they share a transaction
// with the writes of their statements, and the index stays consistent.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, ENGINE } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { toRecord } = require('../../src/resources/statements/statement-record')
const { checkStorage } = require('../../src/storage')

const AUTHORITY = { objectType: 'Agent', name: 'test', account: { homePage: 'http://localhost/lrs', name: 'test' } }

function records (actor, n) {
  return Array.from({ length: n }, () => toRecord({ ...statement({ actor }), id: crypto.randomUUID() }, { authority: AUTHORITY, xapiVersion: '1.0.3' }))
}

test('statements stored, restamped and erased in one writer transaction leave every index row right', { skip: ENGINE !== 'sqlite' && 'the deferred rows are the sqlite writer\'s' }, async () => {
  const lrs = await startLrs()
  const { statements } = lrs.storage
  const actor = { objectType: 'Agent', mbox: `mailto:${crypto.randomUUID()}@example.com` }
  const erased = records(actor, 5)
  const moved = records(actor, 5)
  const kept = records(actor, 5)
  const options = { stored: new Date(), sameStatement: () => true }
  // issued together, without waiting: the writer takes them in one transaction
  await Promise.all([
    statements.storeBatch([erased, moved, kept], options),
    statements.erase(erased.map((r) => r.id)),
    statements.restamp(moved.map((r) => r.id), new Date(Date.now() + 1000))
  ])
  const check = await checkStorage(lrs.config)
  assert.deepEqual(check.problems, [])
  const found = await lrs.client(`/statements?agent=${encodeURIComponent(JSON.stringify(actor))}&limit=100`)
  assert.deepEqual(found.json.statements.map((s) => s.id).sort(), [...moved, ...kept].map((r) => r.id).sort())
  // the hourly counters of the statements stored are written once for the
  // whole transaction, and the erasure's subtraction beside them holds
  const overview = await lrs.http('/admin/overview')
  assert.equal(overview.status, 200, overview.text)
  assert.equal(overview.json.total, 10)
  assert.equal(overview.json.hours.reduce((n, h) => n + h.count, 0), 10)
  // and so are the reports' rollups (report-rollups.js)
  const counted = (await lrs.http('/admin/reports/run', { method: 'POST', body: { measures: ['statements', 'learners'] } })).json
  assert.equal(counted.source, 'rollups')
  assert.deepEqual(counted.rows, [[10, 1]])
})

test('a request whose statements fail in a writer transaction leaves no count behind, while the requests beside it are counted once', { skip: ENGINE !== 'sqlite' && 'the hourly counters are the sqlite writer\'s' }, async () => {
  const lrs = await startLrs()
  const { statements } = lrs.storage
  const actor = { objectType: 'Agent', mbox: `mailto:${crypto.randomUUID()}@example.com` }
  const first = records(actor, 4)
  const second = records(actor, 3)
  const options = { stored: new Date(), sameStatement: () => false }
  await statements.storeBatch([first], options)
  // a request reusing a stored id with other content fails; the other
  // requests, sent at the same moment, share its transaction
  const clash = [...records(actor, 2), { ...records(actor, 1)[0], id: first[0].id }]
  const results = await Promise.all([
    statements.storeBatch([second], options),
    statements.storeBatch([clash], options),
    statements.storeBatch([records(actor, 2)], options)
  ])
  assert.deepEqual(results.map((r) => r.failed.size), [0, 1, 0])
  const overview = await lrs.http('/admin/overview')
  assert.equal(overview.json.total, 9)
  const verbs = overview.json.verbs.reduce((n, v) => n + v.count, 0)
  assert.equal(verbs, 9)
  const counted = (await lrs.http('/admin/reports/run', { method: 'POST', body: { groupBy: ['verb'], measures: ['statements'] } })).json
  assert.equal(counted.source, 'rollups')
  assert.deepEqual(counted.rows.map((r) => r[1]), [9], 'the failed request\'s statements are in no rollup')
})
