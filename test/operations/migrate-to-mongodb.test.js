'use strict'

// Issue 55, item 9: outgrowing one machine. A SQLite LRS filled through
// the HTTP API with every kind of data is moved into MongoDB with `lrs
// migrate`, an LRS started on the MongoDB database, and every resource
// compared through the API before and after: statements (ids, stored,
// authority, voiding, attachments), documents (content, ETag,
// Content-Type), credentials (their old secrets, scopes, stores), stores
// (retention, upstreams), forwarding queues and dead letters, tokens. A
// move cut short and run again ends as one that ran through.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { startLrs, freshStore, dropStoreDatabase, ADMIN } = require('../helpers/lrs')
const { runLrs } = require('../helpers/cli')
const { statement } = require('../helpers/statements')
const { postWithAttachments, attachmentOf } = require('../helpers/multipart')
const { upstreamLrs } = require('../helpers/upstream-lrs')
const { until } = require('../helpers/wait')
const { MongoClient } = require('mongodb')
const { loadConfig } = require('../../src/config')
const { createToolLogger } = require('../../src/logger')
const { openMigrationSource, openMigrationTarget } = require('../../src/storage')
const { migrate, verifyMigration } = require('../../src/transfer/migrate')

const NO_MONGODB = !process.env.MONGODB_URI && 'needs a MongoDB: the mongodb run of test/run.js sets MONGODB_URI (LRS_TEST_ENGINES=sqlite,mongodb)'
const SECRET = 'a-secret-long-enough-to-keep'
const VOIDED = 'http://adlnet.gov/expapi/verbs/voided'

// What the file made, undone once all its tests have run (the filled
// store serves every test).
const cleanups = []
test.after(async () => { for (const cleanup of cleanups.reverse()) await cleanup() })

// A SQLite store (in the mongodb run too).
function sqliteStore () {
  const env = freshStore('sqlite')
  cleanups.push(() => fs.rmSync(env.LRS_DATA_DIR, { recursive: true, force: true }))
  return env
}

// A MongoDB database of its own.
function mongoDatabase () {
  const env = { MONGODB_URI: process.env.MONGODB_URI, MONGODB_DB: 'migrated_' + crypto.randomBytes(6).toString('hex') }
  cleanups.push(() => dropStoreDatabase(env))
  return env
}

async function ok (res, status = 200) {
  assert.equal(res.status, status, res.text)
  return res.json
}

// Every statement a credential sees, voided ones included by their ids,
// through pages of 7 (`more`), each as returned (stored and authority).
async function allStatements (client) {
  const out = []
  let url = '/statements?limit=7&ascending=true'
  while (url) {
    const page = await ok(await client(url))
    out.push(...page.statements)
    url = page.more ? page.more.replace(/^\/xapi/, '') : null
  }
  return out
}

// Statements that share a `stored` come back in another order on each
// engine (SQLite: as written; MongoDB: by id), so pages are compared in
// stored order with ties by id.
const byStoredThenId = (list) => [...list].sort((a, b) => a.stored.localeCompare(b.stored) || a.id.localeCompare(b.id))

// A multipart answer with its random boundary made constant.
function multipartText (res) {
  const boundary = /boundary=([^;]+)/.exec(res.headers.get('content-type'))[1]
  return res.buffer.toString('latin1').split(boundary).join('BOUNDARY')
}

// What the API shows of everything in the LRS; `lastUse`: compare the
// credentials' last use (before any of them is used on the other LRS).
async function snapshot (lrs, data) {
  const shot = { stores: {}, credentials: null, deadLetters: {}, upstreams: {} }
  const adminList = await ok(await lrs.http('/admin/stores'))
  shot.storeList = adminList.stores
  shot.credentials = (await ok(await lrs.http('/admin/credentials'))).credentials
    .map((c) => ({ ...c, lastUsedAt: c.key === ADMIN.user ? null : c.lastUsedAt }))
    .sort((a, b) => a.key.localeCompare(b.key))
  for (const store of data.stores) {
    const xapi = (p, o = {}) => lrs.client(p, { auth: store.admin, ...o })
    const admin = (p, o = {}) => lrs.http(p, { auth: store.admin, ...o })
    const s = {}
    s.statements = byStoredThenId(await allStatements(xapi))
    s.voided = await Promise.all(store.voided.map(async (id) => (await ok(await xapi(`/statements?voidedStatementId=${id}`))).id))
    s.voidedHidden = await Promise.all(store.voided.map(async (id) => (await xapi(`/statements?statementId=${id}`)).status))
    s.attachments = await Promise.all(store.withAttachments.map(async (id) => {
      const res = await xapi(`/statements?statementId=${id}&attachments=true`)
      assert.equal(res.status, 200, res.text)
      return multipartText(res)
    }))
    s.documents = await Promise.all(store.documents.map(async (p) => {
      const res = await xapi(p)
      return { status: res.status, etag: res.headers.get('etag'), type: res.headers.get('content-type'), modified: res.headers.get('last-modified'), body: res.buffer.toString('base64') }
    }))
    s.documentLists = await Promise.all(store.documentLists.map(async (p) => (await ok(await xapi(p))).sort()))
    s.deadLetters = (await ok(await admin('/admin/forwarding/dead-letters'))).deadLetters.sort((a, b) => a.id.localeCompare(b.id))
    s.upstreams = (await ok(await admin('/admin/forwarding/upstreams'))).upstreams.map((u) => ({ id: u.id, forwards: u.forwards, queued: u.queued, oldestEnqueuedAt: u.oldestEnqueuedAt, deadLetters: u.deadLetters }))
    s.forwarders = (await ok(await admin('/admin/forwarders'))).forwarders.map(({ delivery, ...f }) => ({ ...f, queued: delivery.queued, oldestQueuedAt: delivery.oldestQueuedAt }))
    s.savedReports = (await ok(await admin('/admin/reports'))).reports
    s.savedReportRuns = await Promise.all(s.savedReports.map(async (r) => (await ok(await admin(`/admin/reports/${r.id}/run`, { method: 'POST' }))).rows))
    shot.stores[store.id] = s
  }
  return shot
}

// A SQLite LRS with two stores (one made and deleted besides), holding
// every kind of data; closed before it resolves { env, data, before,
// token, more, upstreams }.
let filling = null
function filledSqliteLrs () {
  if (!filling) filling = fill()
  return filling
}

async function fill () {
  const env = sqliteStore()
  const refusing = await upstreamLrs(() => 400) // every store's statements: dead letters
  const down = await upstreamLrs(() => 503) // acme's own: entries stay queued
  cleanups.push(() => { refusing.server.close(); down.server.close() })
  const forwarding = { LRS_FORWARD_URLS: refusing.url }
  const lrs = await startLrs({ ...env, ...forwarding })
  await ok(await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme', name: 'ACME Corp' } }), 201)
  await ok(await lrs.http('/admin/stores/acme', { method: 'PUT', body: { retentionDays: 365, forwardUrls: [down.url] } }))
  await ok(await lrs.http('/admin/stores/default', { method: 'PUT', body: { name: 'Home', retentionDays: 3650 } }))
  await ok(await lrs.http('/admin/stores', { method: 'POST', body: { id: 'gone' } }), 201)
  const goneKey = (await ok(await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: 'gone' } }), 201))
  await ok(await lrs.client('/activities/state?activityId=http%3A%2F%2Fexample.com%2Fa&agent=%7B%22mbox%22%3A%22mailto%3Aa%40example.com%22%7D&stateId=s', { method: 'PUT', body: 'x', headers: { 'Content-Type': 'text/plain' }, auth: [goneKey.key, goneKey.secret] }), 204)
  await ok(await lrs.http('/admin/stores/gone?confirm=gone', { method: 'DELETE' }), 202)

  const credential = async (key, scopes, store) => {
    await ok(await lrs.http('/admin/credentials', { method: 'POST', body: { key, secret: SECRET, scopes, ...(store && { store }) } }), 201)
    return [key, SECRET]
  }
  const stores = [
    { id: 'default', admin: [ADMIN.user, ADMIN.password], writer: await credential('lms', ['statements/write', 'statements/read/mine', 'state', 'profile']) },
    { id: 'acme', admin: await credential('acme-admin', ['all', 'admin'], 'acme'), writer: await credential('acme-lms', ['statements/write', 'statements/read/mine', 'state', 'profile'], 'acme') }
  ]
  // a forwarder of acme's own, paused: its voiding statements wait in its queue
  const mirror = { name: 'mirror', target: { kind: 'lrs', url: down.url.replace('fwd:pw@', '') }, filter: { verb: VOIDED }, paused: true, batchSize: 7 }
  await ok(await lrs.http('/admin/forwarders', { method: 'POST', auth: stores[1].admin, body: mirror }), 201)
  // a saved report of acme's: the same figures after the move
  await ok(await lrs.http('/admin/reports', { method: 'POST', auth: stores[1].admin, body: { name: 'per verb', report: { groupBy: ['verb'], measures: ['statements', 'learners'] } } }), 201)
  const shared = crypto.randomUUID() // the same statement id in both stores
  const learner = { objectType: 'Agent', mbox: 'mailto:Ada.Lovelace@Example.COM' }
  for (const store of stores) {
    const xapi = (p, o = {}) => lrs.client(p, { auth: store.admin, ...o })
    const writer = (p, o = {}) => lrs.client(p, { auth: store.writer, ...o })
    const posted = await ok(await xapi('/statements', { method: 'POST', body: Array.from({ length: 20 }, () => statement()) }))
    await ok(await writer('/statements', { method: 'POST', body: [statement({ id: shared, actor: learner, result: { response: store.id } }), statement({ actor: learner })] }))
    await ok(await writer('/statements', { method: 'POST', body: statement({ id: crypto.randomUUID(), version: '2.0.0', timestamp: '2026-01-02T03:04:05.678Z' }), version: '2.0.0' }))
    // voiding, a StatementRef, and one voiding a statement never stored
    store.voided = [posted[3], posted[4]]
    for (const id of store.voided) await ok(await xapi('/statements', { method: 'POST', body: statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id } }) }))
    await ok(await xapi('/statements', { method: 'POST', body: statement({ object: { objectType: 'StatementRef', id: posted[5] } }) }))
    await ok(await xapi('/statements', { method: 'POST', body: statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: crypto.randomUUID() } }) }))
    // attachments
    const content = Buffer.from(`a certificate of ${store.id} \u00e9\u0000\u00ff`, 'latin1')
    const attached = statement({ attachments: [attachmentOf(content, { contentType: 'application/pdf' })] })
    store.withAttachments = await ok(await postWithAttachments(xapi, [attached], [{ content, contentType: 'application/pdf' }]))
    // documents of the three resources, with content types
    const activity = encodeURIComponent(`http://example.com/course/${store.id}`)
    const agent = encodeURIComponent(JSON.stringify(learner))
    const docs = [
      { path: `/activities/state?activityId=${activity}&agent=${agent}&stateId=bookmark`, body: { page: 7 }, type: 'application/json' },
      { path: `/activities/state?activityId=${activity}&agent=${agent}&stateId=notes&registration=${crypto.randomUUID()}`, body: 'plain notes', type: 'text/plain' },
      { path: `/activities/profile?activityId=${activity}&profileId=syllabus`, body: Buffer.from([0, 1, 2, 250, 251]), type: 'application/octet-stream' },
      { path: `/agents/profile?agent=${agent}&profileId=preferences`, body: { lang: 'fr' }, type: 'application/json' }
    ]
    for (const d of docs) {
      await ok(await writer(d.path, { method: 'PUT', body: Buffer.isBuffer(d.body) || typeof d.body === 'string' ? d.body : JSON.stringify(d.body), headers: { 'Content-Type': d.type, ...(d.path.includes('/profile?') && { 'If-None-Match': '*' }) } }), 204)
    }
    store.documents = docs.map((d) => d.path)
    store.documentLists = [`/activities/state?activityId=${activity}&agent=${agent}`, `/activities/profile?activityId=${activity}`, `/agents/profile?agent=${agent}`]
  }
  // every statement a dead letter of the LRS-wide upstream, acme's queued for its own
  assert.ok(await until(async () => {
    const dead = (await ok(await lrs.http('/admin/forwarding/dead-letters'))).deadLetters
    const queued = (await ok(await lrs.http('/admin/forwarding/upstreams', { auth: stores[1].admin }))).upstreams.find((u) => u.forwards === 'this store')
    return dead.length === 56 && queued.queued === 28
  }, { within: 30000 }), 'dead letters and a queue')
  await ok(await lrs.http('/admin/stores/acme', { method: 'PUT', body: { name: 'ACME Corporation' } })) // after the queue: no more deliveries to compare
  await new Promise((resolve) => setTimeout(resolve, 300))

  const token = await lrs.token([stores[1].writer[0], SECRET])
  const data = { stores }
  const before = await snapshot(lrs, data)
  await lrs.close()
  return { env, forwarding, data, before, token, upstreams: { refusing, down } }
}

test('lrs migrate moves a SQLite LRS into MongoDB: every resource the same through the API, old secrets and tokens accepted', { skip: NO_MONGODB }, async () => {
  const { env, forwarding, data, before, token } = await filledSqliteLrs()
  const target = mongoDatabase()
  const args = ['migrate', '--to-mongodb', target.MONGODB_URI, '--db', target.MONGODB_DB]
  const moved = await runLrs(args, env)
  assert.equal(moved.code, 0, moved.stderr + moved.stdout)
  assert.match(moved.stdout, /^statements: 56 copied/m) // 28 in each store; none of the deleted one's
  assert.match(moved.stdout, /^moved .* in [0-9.]+ s; next/m)
  const verified = await runLrs([...args, '--verify'], env)
  assert.equal(verified.code, 0, verified.stderr + verified.stdout)
  assert.match(verified.stdout, /: the same \(compared/)
  const again = await runLrs(args, env)
  assert.equal(again.code, 0, again.stderr)
  assert.match(again.stdout, /moved already \(nothing to do\)/)

  const lrs = await startLrs({ ...sqliteStore(), ...target, ...forwarding })
  assert.equal(lrs.storage.kind, 'mongodb')
  const after = await snapshot(lrs, data)
  assert.deepEqual(after.storeList, before.storeList, '/admin/stores')
  assert.deepEqual(after.credentials, before.credentials, '/admin/credentials')
  for (const store of data.stores) {
    const [b, a] = [before.stores[store.id], after.stores[store.id]]
    assert.equal(b.statements.length, 26) // 28, less the 2 voided
    assert.deepEqual(a.statements, b.statements, `${store.id}: every statement with its stored and authority`)
    assert.deepEqual(a.voided, b.voided, `${store.id}: voided statements`)
    assert.deepEqual(a.voidedHidden, [404, 404])
    assert.deepEqual(a.attachments, b.attachments, `${store.id}: attachments`)
    assert.ok(b.documents.every((d) => d.status === 200 && d.etag))
    assert.deepEqual(a.documents, b.documents, `${store.id}: documents, ETags, content types`)
    assert.deepEqual(a.documentLists, b.documentLists)
    assert.deepEqual(a.deadLetters, b.deadLetters, `${store.id}: dead letters`)
    assert.deepEqual(a.upstreams, b.upstreams, `${store.id}: forwarding queues`)
    assert.deepEqual(a.forwarders, b.forwarders, `${store.id}: forwarders, with their queues`)
    assert.deepEqual(a.savedReports, b.savedReports, `${store.id}: saved reports`)
    assert.deepEqual(a.savedReportRuns, b.savedReportRuns, `${store.id}: saved reports' figures`)
  }
  assert.equal(before.stores.acme.savedReports.length, 1)
  assert.ok(before.stores.acme.savedReportRuns[0].length > 0)
  assert.deepEqual(before.stores.acme.forwarders.map((f) => [f.name, f.state, f.queued]), [['mirror', 'paused', 3]])
  assert.equal(before.stores.default.deadLetters.length, 56)
  assert.ok(before.stores.acme.upstreams.some((u) => u.queued === 28))

  // the old secrets, scopes and stores; a token issued before
  for (const store of data.stores) {
    const mine = await ok(await lrs.client('/statements', { auth: store.writer }))
    assert.ok(mine.statements.length >= 3, 'statements/read/mine finds its own')
    assert.ok(mine.statements.every((s) => s.authority.account.name === store.writer[0]))
  }
  assert.equal((await lrs.client('/statements', { auth: ['lms', 'a-wrong-secret-but-long'] })).status, 401)
  assert.equal((await lrs.http('/admin/stores', { auth: data.stores[1].writer })).status, 403)
  const withToken = await fetch(lrs.url + '/xapi/statements?limit=1', { headers: { Authorization: `Bearer ${token}`, 'X-Experience-API-Version': '1.0.3' } })
  assert.equal(withToken.status, 200, 'a token issued by the SQLite LRS')

  // new stores get numbers the deleted one never had; writes go on
  await ok(await lrs.http('/admin/stores', { method: 'POST', body: { id: 'gone' } }), 201)
  assert.deepEqual((await ok(await lrs.client('/statements', { auth: data.stores[1].admin }))).statements.length > 0, true)
  await ok(await lrs.client('/statements', { method: 'POST', body: statement() }))
})

test('lrs migrate refuses a running LRS, a database that holds data, and one that holds another store\'s move', { skip: NO_MONGODB }, async () => {
  const { env } = await filledSqliteLrs()
  const target = mongoDatabase()
  const args = ['migrate', '--to-mongodb', target.MONGODB_URI, '--db', target.MONGODB_DB]

  // a writer answering on the store's socket: an LRS under PM2
  const socketPath = path.join(env.LRS_DATA_DIR, 'writer.sock')
  const writer = net.createServer((c) => c.destroy())
  await new Promise((resolve, reject) => writer.once('error', reject).listen(socketPath, resolve))
  const running = await runLrs(args, env)
  await new Promise((resolve) => writer.close(resolve))
  assert.equal(running.code, 1)
  assert.match(running.stderr, /an LRS is running on .*lrs\.sqlite.*stop it first/)

  // a database an LRS has written to
  const other = await startLrs({ ...sqliteStore(), ...target })
  await ok(await other.client('/statements', { method: 'POST', body: statement() }))
  await other.close()
  const full = await runLrs(args, env)
  assert.equal(full.code, 1)
  assert.match(full.stderr, /the database is not empty \(its statements hold data\)/)

  // a database holding the move of another SQLite store
  const first = mongoDatabase()
  const firstArgs = ['migrate', '--to-mongodb', first.MONGODB_URI, '--db', first.MONGODB_DB]
  assert.equal((await runLrs(firstArgs, env)).code, 0)
  const otherStore = sqliteStore()
  const small = await startLrs(otherStore)
  await ok(await small.client('/statements', { method: 'POST', body: statement() }))
  await small.close()
  const foreign = await runLrs(firstArgs, otherStore)
  assert.equal(foreign.code, 1)
  assert.match(foreign.stderr, /holds a move from another store/)

  // a store written since its move began
  const second = mongoDatabase()
  const secondArgs = ['migrate', '--to-mongodb', second.MONGODB_URI, '--db', second.MONGODB_DB]
  assert.equal((await runLrs(secondArgs, otherStore)).code, 0)
  const again = await startLrs(otherStore)
  await ok(await again.client('/statements', { method: 'POST', body: statement() }))
  await again.close()
  const changed = await runLrs(secondArgs, otherStore)
  assert.equal(changed.code, 1)
  assert.match(changed.stderr, /changed since the move into this database began .*Drop the database and move again/)

  assert.equal((await runLrs(['migrate'], env)).code, 2, 'no target')
  assert.equal((await runLrs(['migrate', '--to-mongodb', 'http://x'], env)).code, 2, 'not a MongoDB URI')
})

test('a move cut short after some chunks and run again ends as one run through: nothing missing, nothing twice', { skip: NO_MONGODB }, async () => {
  const { env } = await filledSqliteLrs()
  const config = loadConfig({ ...env, LRS_LOG_LEVEL: 'silent' })
  const logger = createToolLogger({ ...config, logLevel: 'error' })
  const limits = { documents: 2, attachments: 1, statements: 7, outbox: 5, deadLetters: 5 }
  async function run (db, hooks) {
    const source = openMigrationSource(config, logger)
    const target = openMigrationTarget(loadConfig({ ...process.env, LRS_LOG_LEVEL: 'silent', MONGODB_URI: db.MONGODB_URI, MONGODB_DB: db.MONGODB_DB }), logger)
    try {
      await source.open()
      await target.ready
      const result = await migrate({ source, target, limits, hooks })
      return { result, report: await verifyMigration({ source, target, limits }), counts: await target.counts() }
    } finally {
      await source.close()
      await target.close()
    }
  }
  const cut = mongoDatabase()
  let statementChunks = 0
  // the third chunk of statements is written, its position not recorded
  const stop = { async afterWrite (phase) { if (phase === 'statements' && ++statementChunks === 3) throw new Error('cut short') } }
  await assert.rejects(run(cut, stop), /cut short/)
  const resumed = await run(cut)
  assert.deepEqual(resumed.result.resumed, { phase: 'statements', after: resumed.result.resumed.after })
  assert.ok(resumed.result.resumed.after !== null)
  assert.ok(resumed.result.copied.statements > 0 && !('documents' in resumed.result.copied), 'the documents were not copied again')

  const whole = mongoDatabase()
  const through = await run(whole)
  assert.equal(through.result.resumed, null)
  assert.deepEqual(resumed.counts, through.counts, 'the same number of each')
  for (const report of [resumed.report, through.report]) {
    for (const r of report) assert.equal(r.differences, 0, `${r.kind}: ${r.examples.join('; ')}`)
  }
  assert.deepEqual(resumed.report, through.report)
  const statements = through.report.find((r) => r.kind === 'statements')
  assert.deepEqual([statements.source, statements.target], [56, 56])

  // what the check finds: a statement changed, one gone, a document's ETag, a credential more
  const client = new MongoClient(whole.MONGODB_URI)
  let one, two
  try {
    const db = client.db(whole.MONGODB_DB);
    [one, two] = await db.collection('statements').find({ body: { $exists: true } }).limit(2).toArray()
    await db.collection('statements').updateOne({ _id: one._id }, { $set: { body: one.body.replace('"verb"', '"verb" ') } })
    await db.collection('statements').deleteOne({ _id: two._id })
    const doc = await db.collection('documents').findOne({})
    await db.collection('documents').updateOne({ _id: doc._id }, { $set: { etag: 'changed' } })
    await db.collection('credentials').insertOne({ _id: 'intruder', secretHash: 'x', scopes: ['all'], store: 0, createdAt: new Date() })
  } finally {
    await client.close()
  }
  const found = Object.fromEntries((await run(whole)).report.map((r) => [r.kind, r]))
  assert.deepEqual(found.statements.examples.sort(), ['1 in the source not in the target', `statement ${one._id}: body differ`, `statement ${two._id}: missing`].sort())
  assert.match(found.documents.examples.join(), /etag differ/)
  assert.deepEqual(found.credentials.examples, ['credential intruder: only in the target'])
  assert.equal(found.attachments.differences, 0)
})
