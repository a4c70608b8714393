'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')

const READS = new Set(['find', 'aggregate', 'getMore', 'count', 'distinct'])

test('with forwarding off, the write path reads no statements', async () => {
  const lrs = await startLrs({}, { monitorCommands: true })
  const commands = []
  lrs.storage.internals.client.on('commandStarted', (e) => commands.push({ name: e.commandName, collection: e.command[e.commandName] }))
  const posts = []
  for (let i = 0; i < 20; i++) {
    posts.push(lrs.client('/statements', { method: 'POST', body: Array.from({ length: 5 }, () => statement()) }))
  }
  posts.push(lrs.client(`/statements?statementId=${crypto.randomUUID()}`, { method: 'PUT', body: statement() }))
  const results = await Promise.all(posts)
  assert.ok(results.every((r) => r.status === 200 || r.status === 204))
  const reads = commands.filter((c) => READS.has(c.name))
  assert.deepEqual(reads, [], 'no find/aggregate/getMore/count/distinct while ingesting')
  const inserts = commands.filter((c) => c.name === 'insert' && c.collection === 'statements')
  assert.ok(inserts.length >= 1 && inserts.length < 21, `${inserts.length} insert commands for 21 requests: batched across requests`)
  assert.equal(await lrs.storage.internals.db.collection('statements').countDocuments(), 101)
})

test('beyond the in-flight bound requests get 429 with Retry-After at once; nothing accepted is lost', async () => {
  const lrs = await startLrs({ LRS_MAX_IN_FLIGHT_STATEMENTS: '10' })
  const sent = Array.from({ length: 40 }, () => Array.from({ length: 5 }, () => statement({ id: crypto.randomUUID() })))
  const results = await Promise.all(sent.map((body) => lrs.client('/statements', { method: 'POST', body })))
  const statuses = results.map((r) => r.status)
  assert.ok(statuses.every((s) => s === 200 || s === 429), `statuses ${[...new Set(statuses)]}`)
  assert.ok(statuses.includes(429), 'some requests were refused')
  for (const r of results.filter((r) => r.status === 429)) {
    assert.ok(r.headers.get('retry-after'))
    assert.equal(r.json.code, 'LRS_ERR_OVERLOADED')
  }
  const acceptedIds = sent.filter((_, i) => statuses[i] === 200).flat().map((s) => s.id)
  const refusedIds = sent.filter((_, i) => statuses[i] === 429).flat().map((s) => s.id)
  const col = lrs.storage.internals.db.collection('statements')
  assert.equal(await col.countDocuments({ _id: { $in: acceptedIds } }), acceptedIds.length)
  assert.equal(await col.countDocuments({ _id: { $in: refusedIds } }), 0)
})

test('request bodies beyond LRS_MAX_IN_FLIGHT_BYTES get 429 before being read', async () => {
  const lrs = await startLrs({ LRS_MAX_IN_FLIGHT_BYTES: '30000' })
  const sent = Array.from({ length: 30 }, () => Array.from({ length: 20 }, () => statement({ id: crypto.randomUUID() })))
  const results = await Promise.all(sent.map((body) => lrs.client('/statements', { method: 'POST', body })))
  const statuses = results.map((r) => r.status)
  assert.ok(statuses.every((s) => s === 200 || s === 429), `statuses ${[...new Set(statuses)]}`)
  assert.ok(statuses.includes(429) && statuses.includes(200))
  const refusedIds = sent.filter((_, i) => statuses[i] === 429).flat().map((s) => s.id)
  assert.equal(await lrs.storage.internals.db.collection('statements').countDocuments({ _id: { $in: refusedIds } }), 0)
  // The counter is released: once idle, requests are accepted again.
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement() })).status, 200)
})

test('request bodies above LRS_BODY_LIMIT get 413', async () => {
  const lrs = await startLrs({ LRS_BODY_LIMIT: '4096' })
  const res = await lrs.client('/statements', { method: 'POST', body: Array.from({ length: 20 }, () => statement()) })
  assert.equal(res.status, 413)
  assert.equal(res.json.code, 'LRS_ERR_PAYLOAD_TOO_LARGE')
})

test('graceful shutdown answers the requests in flight before closing', async () => {
  const lrs = await startLrs()
  const body = Array.from({ length: 50 }, () => statement({ id: crypto.randomUUID() }))
  const pending = lrs.client('/statements', { method: 'POST', body })
  await new Promise((resolve) => setTimeout(resolve, 5))
  const closing = lrs.close()
  const res = await pending
  await closing
  if (res.status === 200) {
    const { MongoClient } = require('mongodb')
    const client = new MongoClient(process.env.MONGODB_URI)
    const n = await client.db(lrs.config.mongodbDb).collection('statements').countDocuments({ _id: { $in: body.map((s) => s.id) } })
    await client.close()
    assert.equal(n, 50)
  } else {
    assert.equal(res.status, 503)
  }
})

test('when a write has been held up past LRS_MAX_WAIT_MS, new statement requests get 429 with Retry-After at once, before their body is read', async () => {
  const { gate } = require('../helpers/gate')
  const write = gate()
  let hold = true
  const lrs = await startLrs({ LRS_MAX_WAIT_MS: '200' }, { hooks: { beforeStore: async () => { if (hold) { hold = false; await write.wait() } } } })
  const first = lrs.client('/statements', { method: 'POST', body: statement() })
  await write.reached
  await new Promise((resolve) => setTimeout(resolve, 300)) // the write stays held past the bound
  const shed = await lrs.client('/statements', { method: 'POST', body: statement() })
  assert.equal(shed.status, 429)
  assert.equal(shed.json.code, 'LRS_ERR_OVERLOADED')
  assert.ok(shed.headers.get('retry-after'))
  assert.equal((await lrs.client('/statements?limit=1')).status, 200, 'reads are not held up by the write backlog')
  write.open()
  assert.equal((await first).status, 200)
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement() })).status, 200)
})
