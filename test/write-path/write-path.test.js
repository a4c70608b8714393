'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { statement } = require('../helpers/statements')
const { startLrs, ENGINE, basic, ADMIN } = require('../helpers/lrs')
const { gate } = require('../helpers/gate')
const { heldRequest } = require('../helpers/held-request')

const READS = new Set(['find', 'aggregate', 'getMore', 'count', 'distinct'])

// How many of `ids` are stored.
async function storedCount (lrs, ids) {
  return (await lrs.storage.statements.findBodies(ids)).size
}

test('with forwarding off, the write path calls no read of storage, and concurrent requests share writes', async () => {
  const lrs = await startLrs()
  const calls = []
  for (const name of ['findOne', 'findBodies', 'findReferencedIds', 'findIdsReferencing', 'findReferencingIds', 'query']) {
    const original = lrs.storage.statements[name]
    lrs.storage.statements[name] = (...args) => { calls.push(name); return original(...args) }
  }
  let writes = 0
  const storeBatch = lrs.storage.statements.storeBatch
  lrs.storage.statements.storeBatch = (...args) => { writes++; return storeBatch(...args) }
  const results = await Promise.all([
    ...Array.from({ length: 20 }, () => lrs.client('/statements', { method: 'POST', body: Array.from({ length: 5 }, () => statement()) })),
    lrs.client(`/statements?statementId=${crypto.randomUUID()}`, { method: 'PUT', body: statement() })
  ])
  assert.ok(results.every((r) => r.status === 200 || r.status === 204))
  assert.deepEqual(calls, [])
  assert.ok(writes >= 1 && writes < 21, `${writes} batch writes for 21 requests`)
  const ids = results.slice(0, 20).flatMap((r) => r.json)
  assert.equal(await storedCount(lrs, ids), 100)
})

test('with forwarding off, the write path sends MongoDB no read command', { skip: ENGINE !== 'mongodb' && 'MongoDB command monitoring' }, async () => {
  // the credentials' change mark is polled every 500 ms (a read of settings
  // beside the write path, not by it): once in 10 minutes here, so that a
  // slow machine's longer ingest does not meet it (CI, 2026-12-06)
  const lrs = await startLrs({ LRS_CREDENTIAL_POLL_MS: '600000' }, { monitorCommands: true })
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
  const { results, acceptedIds, refusedIds } = await postAtOnce(lrs, 40, 5)
  assert.ok(refusedIds.length, 'some requests were refused')
  for (const r of results.filter((r) => r.status === 429)) {
    assert.ok(r.headers.get('retry-after'))
    assert.equal(r.json.code, 'LRS_ERR_OVERLOADED')
  }
  assert.equal(await storedCount(lrs, acceptedIds), acceptedIds.length)
  assert.equal(await storedCount(lrs, refusedIds), 0)
})

// `requests` POSTs of `size` new statements each, all at once; each must be
// answered 200 or 429.
async function postAtOnce (lrs, requests, size) {
  const sent = Array.from({ length: requests }, () => Array.from({ length: size }, () => statement({ id: crypto.randomUUID() })))
  const results = await Promise.all(sent.map((body) => lrs.client('/statements', { method: 'POST', body })))
  const statuses = results.map((r) => r.status)
  assert.ok(statuses.every((s) => s === 200 || s === 429), `statuses ${[...new Set(statuses)]}`)
  const idsAnswered = (status) => sent.filter((_, i) => statuses[i] === status).flat().map((s) => s.id)
  return { results, acceptedIds: idsAnswered(200), refusedIds: idsAnswered(429) }
}

test('request bodies beyond LRS_MAX_IN_FLIGHT_BYTES get 429 before being read', async () => {
  const lrs = await startLrs({ LRS_MAX_IN_FLIGHT_BYTES: '30000' })
  const { acceptedIds, refusedIds } = await postAtOnce(lrs, 30, 20)
  assert.ok(refusedIds.length && acceptedIds.length, 'some requests were refused, some accepted')
  assert.equal(await storedCount(lrs, refusedIds), 0)
  // The counter is released: once idle, requests are accepted again.
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement() })).status, 200)
})

test('request bodies above LRS_BODY_LIMIT get 413', async () => {
  const lrs = await startLrs({ LRS_BODY_LIMIT: '4096' })
  const res = await lrs.client('/statements', { method: 'POST', body: Array.from({ length: 20 }, () => statement()) })
  assert.equal(res.status, 413)
  assert.equal(res.json.code, 'LRS_ERR_PAYLOAD_TOO_LARGE')
})

test('graceful shutdown answers the requests in flight, then closes', async () => {
  const write = gate()
  const lrs = await startLrs({}, { hooks: { beforeStore: () => write.wait() } })
  const body = Array.from({ length: 50 }, () => statement({ id: crypto.randomUUID() }))
  const pending = lrs.client('/statements', { method: 'POST', body })
  await write.reached // the request is in the write path
  const closing = lrs.close()
  write.open()
  const res = await pending
  await closing
  assert.equal(res.status, 200, res.text)
  const after = await startLrs({ ...lrs.storeEnv })
  assert.equal(await storedCount(after, body.map((s) => s.id)), 50)
})

test('a graceful shutdown serves an open keep-alive connection with Connection: close and goes on once its client has closed it, not after the whole grace period', async () => {
  const http = require('node:http')
  const lrs = await startLrs({ LRS_SHUTDOWN_GRACE_MS: '20000', LRS_SHUTDOWN_TIMEOUT_MS: '30000' })
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const get = () => new Promise((resolve, reject) => {
    http.get(lrs.url + '/xapi/about', { agent }, (res) => {
      res.resume()
      res.on('end', () => resolve(res))
    }).on('error', reject)
  })
  const first = await get()
  assert.equal(first.statusCode, 200)
  assert.notEqual(first.headers.connection, 'close') // the connection stays open, idle
  const started = Date.now()
  const closing = lrs.close()
  await new Promise((resolve) => setTimeout(resolve, 200))
  const second = await get() // on the same connection, during the shutdown
  assert.equal(second.statusCode, 200)
  assert.equal(second.headers.connection, 'close')
  await closing
  agent.destroy()
  assert.ok(Date.now() - started < 10000, `the shutdown took ${Date.now() - started} ms of its 20,000 ms grace period`)
})

test('when a write has been held up past LRS_MAX_WAIT_MS, new statement requests get 429 with Retry-After at once, before their body is read', async () => {
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

// A statement POST whose body is held back after its first byte: the
// request is admitted (or refused) on its head. Resolves { status, finish }:
// status once an answer comes, finish() sends the rest of the body.
function heldPost (url, body) {
  const text = JSON.stringify(body)
  const request = heldRequest(url, 'POST /xapi/statements HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Experience-API-Version: 1.0.3\r\n' +
    `Authorization: ${basic(ADMIN.user, ADMIN.password)}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text[0]}`)
  return { status: request.status, finish: () => request.send(text.slice(1)), close: request.close }
}

test('a burst of statement writes arriving together is admitted only up to LRS_MAX_WAIT_MS of expected work, before any of it is stored', async (t) => {
  const lrs = await startLrs({ LRS_MAX_WAIT_MS: '10' })
  // bodies held back: admitted requests stay in flight ahead of the batcher
  const held = Array.from({ length: 60 }, () => heldPost(lrs.url, statement()))
  t.after(() => { for (const h of held) h.close() })
  const answered = []
  held.forEach((h, i) => h.status.then((status) => answered.push({ i, status })))
  // the last one is refused at once once the admitted ones fill the bound
  const last = await Promise.race([held[held.length - 1].status, new Promise((resolve) => { const t = setTimeout(resolve, 10000, 'no answer within 10 s'); t.unref() })])
  assert.equal(last, 429)
  const refused = answered.filter((a) => a.status === 429).map((a) => a.i)
  assert.ok(refused.length < held.length - 1, 'the first requests are admitted')
  // the admitted ones complete and are stored
  const admitted = held.filter((_, i) => !refused.includes(i))
  for (const h of admitted) h.finish()
  assert.deepEqual([...new Set(await Promise.all(admitted.map((h) => h.status)))], [200])
  for (const h of held) h.close() // here too: left to t.after, the sockets held the test a minute
})
