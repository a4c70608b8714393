'use strict'

// Issue 11 item 6: a bulk insert that keeps ids, `stored` and `authority`,
// so a store can move between engines (export, then import).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { toRecord } = require('../../src/resources/statements/statement-record')

test('statements inserted with their own stored time and authority read back exactly so, in stored order, and a second insert changes nothing', async () => {
  const lrs = await startLrs()
  const authority = { objectType: 'Agent', name: 'elsewhere', account: { homePage: 'http://old-lrs.example.com', name: 'lms-7' } }
  const verb = `http://example.com/verbs/${crypto.randomUUID()}`
  const times = ['2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z', '2023-06-30T12:34:56.789Z']
  const records = times.map((t) => ({ ...toRecord(statement({ id: crypto.randomUUID(), verb: { id: verb }, timestamp: '2023-01-01T00:00:00.000Z' }), { authority, xapiVersion: '1.0.3' }), stored: new Date(t) }))
  assert.deepEqual(await lrs.storage.statements.insertStored(records), [])
  for (const [i, r] of records.entries()) {
    const got = await lrs.client(`/statements?statementId=${r.id}`)
    assert.equal(got.status, 200)
    assert.equal(got.json.stored, times[i])
    assert.deepEqual(got.json.authority, authority)
    assert.equal(got.json.timestamp, '2023-01-01T00:00:00.000Z')
  }
  const page = await lrs.client(`/statements?verb=${encodeURIComponent(verb)}&ascending=true`)
  assert.deepEqual(page.json.statements.map((s) => s.stored), [times[2], times[0], times[1]])
  assert.deepEqual((await lrs.storage.statements.insertStored(records)).sort(), records.map((r) => r.id).sort())
  assert.equal((await lrs.client(`/statements?verb=${encodeURIComponent(verb)}`)).json.statements.length, 3)
})

test('a filter that matches only far down another filter\'s statements is still found (SQLite walks its postings in windows)', async () => {
  const lrs = await startLrs()
  const authority = { objectType: 'Agent', account: { homePage: 'http://example.com', name: 'importer' } }
  const mbox = `mailto:${crypto.randomUUID()}@example.com`
  const rare = `http://example.com/verbs/${crypto.randomUUID()}`
  const common = `http://example.com/verbs/${crypto.randomUUID()}`
  const start = Date.parse('2024-03-01T00:00:00.000Z')
  const records = Array.from({ length: 4500 }, (_, i) => ({
    ...toRecord(statement({ id: crypto.randomUUID(), actor: { mbox }, verb: { id: i === 0 ? rare : common } }), { authority, xapiVersion: '1.0.3' }),
    stored: new Date(start + i)
  }))
  assert.deepEqual(await lrs.storage.statements.insertStored(records), [])
  const agent = encodeURIComponent(JSON.stringify({ mbox }))
  for (const order of ['', '&ascending=true']) {
    const res = await lrs.client(`/statements?agent=${agent}&verb=${encodeURIComponent(rare)}${order}`)
    assert.deepEqual(res.json.statements.map((s) => s.id), [records[0].id], order || 'descending')
  }
  const page = await lrs.client(`/statements?agent=${agent}&limit=5`)
  assert.deepEqual(page.json.statements.map((s) => s.id), records.slice(-5).reverse().map((r) => r.id))
})
