'use strict'

// Issue 36: deleting a store. It is gone for every request at once, its
// credentials with it; its statements, documents and attachments are then
// purged in the background, and every other store keeps all of its own.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, ENGINE } = require('../helpers/lrs')
const { checkSqliteStore } = require('../../src/storage/sqlite/check')
const { statement, allIds } = require('../helpers/statements')
const { buildMultipart } = require('../../src/http/multipart')
const { until } = require('../helpers/wait')
const { asSchema11 } = require('../helpers/sqlite-files')

// What is left of store `number` underneath: its statements (pending
// flags included), documents and attachments.
async function leftovers (lrs, number) {
  const prefix = `s${number}|`
  if (ENGINE === 'mongodb') {
    const db = lrs.storage.internals.db
    const range = { $gte: prefix, $lt: `s${number}}` }
    return {
      statements: await db.collection('statements').countDocuments({ _id: range }),
      documents: await db.collection('documents').countDocuments({ $or: [{ store: number }, { agent: range }] }),
      attachments: await db.collection('attachments').countDocuments({ _id: range }) + await db.collection('attachment_chunks').countDocuments({ _id: range })
    }
  }
  const db = lrs.storage.internals.db
  return {
    statements: db.prepare('SELECT count(*) FROM statements WHERE store = ?').pluck().get(number),
    documents: db.prepare('SELECT count(*) FROM documents WHERE store = ? OR agent GLOB ?').pluck().get(number, prefix + '*'),
    attachments: db.prepare('SELECT count(*) FROM attachments WHERE sha2 GLOB ?').pluck().get(prefix + '*')
  }
}

// An LRS whose deleted stores are marked purged as soon as their data is gone.
const PURGE_NOW = { hooks: { purgeGraceMs: 0 } }

async function storeWithCredential (lrs, id) {
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id } })).status, 201)
  const res = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all', 'admin'], store: id } })
  assert.equal(res.status, 201, res.text)
  const auth = [res.json.key, res.json.secret]
  return { auth, client: (path, options = {}) => lrs.client(path, { auth, ...options }) }
}

async function post (client, body) {
  const res = await client('/statements', { method: 'POST', body })
  assert.equal(res.status, 200, res.text)
  return res.json
}

// What a store holds, written the same way into each: statements (one
// voided, one a StatementRef), an attachment, and one document of each resource.
async function fill (client, { activityId, agent, actor, content }) {
  const ids = await post(client, [statement({ actor }), statement({ actor }), statement({ actor, object: { objectType: 'Activity', id: activityId } })])
  await post(client, statement({ actor, verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: ids[0] } }))
  await post(client, statement({ actor, object: { objectType: 'StatementRef', id: ids[1] } }))
  const sha2 = crypto.createHash('sha256').update(content).digest('hex')
  const attachment = { usageType: 'http://example.com/usage', display: { 'en-US': 'a file' }, contentType: 'text/plain', length: content.length, sha2 }
  const boundary = 'b' + crypto.randomUUID()
  const multipart = buildMultipart([{ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(statement({ actor, attachments: [attachment] })) },
    { headers: { 'Content-Type': 'text/plain', 'Content-Transfer-Encoding': 'binary', 'X-Experience-API-Hash': sha2 }, body: content }], boundary)
  const stored = await client('/statements', { method: 'POST', body: multipart, headers: { 'Content-Type': `multipart/mixed; boundary=${boundary}` } })
  assert.equal(stored.status, 200, stored.text)
  for (const path of [`/activities/state?activityId=${activityId}&agent=${agent}&stateId=bookmark`, `/activities/profile?activityId=${activityId}&profileId=p`, `/agents/profile?agent=${agent}&profileId=p`]) {
    assert.equal((await client(path, { method: 'PUT', body: { at: 'page 3' }, headers: { 'If-None-Match': '*' } })).status, 204, path)
  }
  return { ids: [...ids, stored.json[0]], sha2 }
}

test('a deleted store is gone at once and purged after; the other stores keep all of theirs, and the id can be used again', async () => {
  const logLines = []
  const lrs = await startLrs({ LRS_LOG_LEVEL: 'info' }, { ...PURGE_NOW, logLines })
  const acme = await storeWithCredential(lrs, 'acme')
  const keep = await storeWithCredential(lrs, 'keep')
  const actor = { mbox: `mailto:${crypto.randomUUID()}@example.com` }
  const shared = { activityId: `http://example.com/activities/${crypto.randomUUID()}`, agent: encodeURIComponent(JSON.stringify(actor)), actor, content: Buffer.from(`file ${crypto.randomUUID()}`) }
  await fill(acme.client, shared)
  const kept = await fill(keep.client, shared)
  const home = await fill(lrs.client, shared)

  const preview = await lrs.http('/admin/stores/acme')
  assert.equal(preview.status, 200, preview.text)
  assert.deepEqual({ ...preview.json, createdAt: null }, { id: 'acme', name: 'acme', createdAt: null, retentionDays: null, forwardTo: [], statements: 6, documents: 3, documentBytes: preview.json.documentBytes, attachments: 1, attachmentBytes: shared.content.length, credentials: 1 })
  assert.ok(preview.json.documentBytes > 0)

  const ACME = 1 // the first store made takes number 1 (store-keys.js)
  assert.deepEqual(await leftovers(lrs, ACME), { statements: 6, documents: 3, attachments: ENGINE === 'mongodb' ? 2 : 1 }, 'what the purge will remove')
  assert.equal((await lrs.http('/admin/stores/acme', { method: 'DELETE' })).json.code, 'LRS_ERR_CONFIRMATION_REQUIRED')
  assert.equal((await lrs.http('/admin/stores/acme?confirm=keep', { method: 'DELETE' })).status, 400)
  assert.equal((await lrs.http('/admin/stores/default?confirm=default', { method: 'DELETE' })).json.code, 'LRS_ERR_STORE_NOT_DELETABLE')
  assert.equal((await lrs.http('/admin/stores/keep?confirm=keep', { method: 'DELETE', auth: keep.auth })).status, 403, 'an admin of a store without stores/admin deletes no store')
  const deleted = await lrs.http('/admin/stores/acme?confirm=acme', { method: 'DELETE' })
  assert.equal(deleted.status, 202, deleted.text)
  assert.equal(deleted.json.deleted.statements, 6)
  assert.equal((await lrs.http('/admin/stores/acme?confirm=acme', { method: 'DELETE' })).status, 404)

  // gone for every request at once: its credential, and the store in the admin API
  assert.ok(await until(async () => (await acme.client('/statements')).status === 401), 'the deleted store\'s credential is refused')
  assert.equal((await lrs.http('/admin/stores/acme')).status, 404)
  assert.ok(!(await lrs.http('/admin/stores')).json.stores.some((s) => s.id === 'acme'))
  // purged, then no longer listed as being deleted
  assert.ok(await until(async () => (await lrs.http('/admin/stores')).json.deleting.length === 0), 'the purge ends')
  // the log says what went, in counts, and how long since the deletion
  const purged = await until(() => logLines.some((l) => l.msg === 'deleted store purged'))
  assert.ok(purged, 'a log line for the purge')
  const line = logLines.find((l) => l.msg === 'deleted store purged')
  assert.equal(line.store, 'acme')
  assert.equal(line.statements, 6)
  assert.ok(Number.isInteger(line.sinceDeletionMs) && line.sinceDeletionMs >= line.ms, JSON.stringify(line))

  assert.deepEqual(await leftovers(lrs, ACME), { statements: 0, documents: 0, attachments: 0 })

  // the id again: a new, empty store
  const again = await storeWithCredential(lrs, 'acme')
  assert.deepEqual(await allIds({ client: again.client }, ''), [])
  for (const id of kept.ids) assert.equal((await again.client(`/statements?statementId=${id}`)).status, 404)
  assert.equal((await again.client(`/activities/state?activityId=${shared.activityId}&agent=${shared.agent}&stateId=bookmark`)).status, 404)
  assert.equal((await again.client(`/activities/profile?activityId=${shared.activityId}&profileId=p`)).status, 404)
  assert.equal((await again.client(`/agents/profile?agent=${shared.agent}&profileId=p`)).status, 404)
  const described = (await lrs.http('/admin/stores/acme')).json
  assert.deepEqual([described.statements, described.documents, described.attachments], [0, 0, 0])

  // the others keep everything: statements by id and by query, documents, attachments
  for (const [client, own] of [[keep.client, kept], [lrs.client, home]]) {
    assert.equal((await allIds({ client }, `agent=${shared.agent}`)).length, 5, 'the voided one is not returned')
    for (const id of own.ids.slice(1)) assert.equal((await client(`/statements?statementId=${id}`)).status, 200)
    assert.equal((await client(`/statements?voidedStatementId=${own.ids[0]}`)).status, 200)
    assert.equal((await client(`/activities/state?activityId=${shared.activityId}&agent=${shared.agent}&stateId=bookmark`)).json.at, 'page 3')
    assert.equal((await client(`/agents/profile?agent=${shared.agent}&profileId=p`)).status, 200)
    const withFile = await client(`/statements?statementId=${own.ids.at(-1)}&attachments=true`)
    assert.ok(withFile.buffer.includes(shared.content), 'the attachment is still served')
  }
  if (ENGINE === 'sqlite') {
    await lrs.close()
    assert.deepEqual(checkSqliteStore({ dataDir: lrs.storeEnv.LRS_DATA_DIR }).problems, [])
  }
})

test('a store is deleted only with stores/admin, never through its own credential', async () => {
  const lrs = await startLrs({}, PURGE_NOW)
  await storeWithCredential(lrs, 'other')
  const res = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['stores/admin'], store: 'other' } })
  assert.equal(res.status, 201, res.text)
  const own = await lrs.http('/admin/stores/other?confirm=other', { method: 'DELETE', auth: [res.json.key, res.json.secret] })
  assert.equal(own.status, 409)
  assert.match(own.json.message, /own store/)
})

test('a store written by schema 11 is upgraded: its State and Agent Profile documents get their store, and go with it', { skip: ENGINE !== 'sqlite' && 'the sqlite engine' }, async () => {
  const first = await startLrs()
  const acme = await storeWithCredential(first, 'acme')
  const actor = { mbox: `mailto:${crypto.randomUUID()}@example.com` }
  const shared = { activityId: `http://example.com/activities/${crypto.randomUUID()}`, agent: encodeURIComponent(JSON.stringify(actor)), actor, content: Buffer.from('file') }
  await fill(acme.client, shared)
  const home = await fill(first.client, shared)
  await first.close()
  asSchema11(first.storeEnv.LRS_DATA_DIR).close()

  const lrs = await startLrs({ ...first.storeEnv }, PURGE_NOW)
  const state = `/activities/state?activityId=${shared.activityId}&agent=${shared.agent}&stateId=bookmark`
  assert.equal((await lrs.client(state, { auth: acme.auth })).json.at, 'page 3', 'upgraded, the store answers as before')
  const ACME = 1
  assert.equal((await leftovers(lrs, ACME)).documents, 2, 'State and Agent Profile documents know their store; the Activity Profile one cannot')
  assert.equal((await lrs.http('/admin/stores/acme?confirm=acme', { method: 'DELETE' })).status, 202)
  assert.ok(await until(async () => (await lrs.http('/admin/stores')).json.deleting.length === 0), 'the purge ends')
  assert.deepEqual(await leftovers(lrs, ACME), { statements: 0, documents: 0, attachments: 0 })
  assert.equal((await lrs.client(state)).json.at, 'page 3', 'the default store\'s document stays')
  for (const id of home.ids.slice(1)) assert.equal((await lrs.client(`/statements?statementId=${id}`)).status, 200)
  await lrs.close()
  assert.deepEqual(checkSqliteStore({ dataDir: lrs.storeEnv.LRS_DATA_DIR }).problems, [])
})
