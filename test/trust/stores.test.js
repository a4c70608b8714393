'use strict'

// Issue 36: stores. A credential belongs to one store; nothing of another
// store can be read, matched, voided, overwritten or erased through it,
// and the same statement id may be stored in two stores.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, ADMIN, ENGINE } = require('../helpers/lrs')
const { checkSqliteStore } = require('../../src/storage/sqlite/check')
const { statement, allIds } = require('../helpers/statements')
const { buildMultipart } = require('../../src/http/multipart')
const { asSchema10, withoutDefaultStoreTerm } = require('../helpers/sqlite-files')
const { statementQuery } = require('../../src/storage/statement-query')

// An LRS with a store `acme` beside the default one, and for each store
// a credential with every xAPI scope and `admin` (the bootstrap credential
// is the default store's).
async function twoStores () {
  const lrs = await startLrs()
  const created = await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme', name: 'ACME Corp' } })
  assert.equal(created.status, 201, created.text)
  const credential = async (store) => {
    const res = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all', 'admin'], store } })
    assert.equal(res.status, 201, res.text)
    assert.equal(res.json.store, store)
    return [res.json.key, res.json.secret]
  }
  const acme = await credential('acme')
  const other = await credential('default')
  const as = (auth) => (path, options = {}) => lrs.client(path, { auth, ...options })
  const adminAs = (auth) => (path, options = {}) => lrs.http(path, { auth, ...options })
  return { lrs, acme: as(acme), home: as(other), acmeAdmin: adminAs(acme), homeAdmin: adminAs(other) }
}

async function post (client, body) {
  const res = await client('/statements', { method: 'POST', body })
  assert.equal(res.status, 200, res.text)
  return res.json
}

async function idsOf (client, query) {
  return allIds({ client }, query)
}

test('the same statement id in two stores: each store reads its own, and queries see their own store only', async () => {
  const { acme, home } = await twoStores()
  const id = crypto.randomUUID()
  const verb = { id: `http://example.com/verbs/${crypto.randomUUID()}` }
  const activity = { objectType: 'Activity', id: `http://example.com/activities/${crypto.randomUUID()}` }
  const actor = { mbox: `mailto:shared-${crypto.randomUUID()}@example.com` }
  const registration = crypto.randomUUID()
  const shared = { verb, object: activity, actor, context: { registration } }
  await post(home, statement({ id, ...shared, result: { response: 'home' } }))
  await post(acme, statement({ id, ...shared, result: { response: 'acme' } }))
  const homeOnly = (await post(home, statement(shared)))[0]
  const acmeOnly = (await post(acme, statement(shared)))[0]

  assert.equal((await home(`/statements?statementId=${id}`)).json.result.response, 'home')
  assert.equal((await acme(`/statements?statementId=${id}`)).json.result.response, 'acme')
  assert.equal((await acme(`/statements?statementId=${homeOnly}`)).status, 404)
  assert.equal((await home(`/statements?statementId=${acmeOnly}`)).status, 404)

  for (const query of ['', `verb=${encodeURIComponent(verb.id)}`, `activity=${encodeURIComponent(activity.id)}`, `agent=${encodeURIComponent(JSON.stringify(actor))}`,
    `registration=${registration}`, `agent=${encodeURIComponent(JSON.stringify(actor))}&related_agents=true&verb=${encodeURIComponent(verb.id)}`]) {
    const inAcme = await idsOf(acme, query)
    const inHome = await idsOf(home, query)
    assert.ok(inAcme.includes(acmeOnly) && inAcme.includes(id) && !inAcme.includes(homeOnly), `acme, ${query}`)
    assert.ok(inHome.includes(homeOnly) && inHome.includes(id) && !inHome.includes(acmeOnly), `default, ${query}`)
    if (query) {
      assert.equal(inAcme.length, 2, `acme, ${query}`)
      assert.equal(inHome.length, 2, `default, ${query}`)
    }
  }
  // the answers carry each store's own statement
  const page = await acme(`/statements?verb=${encodeURIComponent(verb.id)}`)
  assert.deepEqual(page.json.statements.map((s) => s.result && s.result.response).filter(Boolean), ['acme'])
})

test('a voiding statement or a StatementRef in one store never touches the statement of that id in another', async () => {
  const { acme, home } = await twoStores()
  const target = crypto.randomUUID()
  const verb = { id: `http://example.com/verbs/${crypto.randomUUID()}` }
  await post(home, statement({ id: target, verb }))
  // acme voids an id only the default store has: nothing there changes
  const [voiding] = await post(acme, statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: target } }))
  assert.equal((await home(`/statements?statementId=${target}`)).status, 200)
  assert.equal((await home(`/statements?voidedStatementId=${target}`)).status, 404)
  assert.deepEqual(await idsOf(home, `verb=${encodeURIComponent(verb.id)}`), [target])
  // acme stores the id later: its own copy is voided (the voiding came first), the default store's is not
  await post(acme, statement({ id: target, verb }))
  assert.equal((await acme(`/statements?voidedStatementId=${target}`)).status, 200)
  assert.equal((await acme(`/statements?statementId=${target}`)).status, 404)
  assert.equal((await home(`/statements?statementId=${target}`)).status, 200)
  // a StatementRef in acme to a statement only the default store has matches nothing there
  const other = crypto.randomUUID()
  await post(home, statement({ id: other, verb }))
  const ref = (await post(acme, statement({ verb: { id: `http://example.com/verbs/${crypto.randomUUID()}` }, object: { objectType: 'StatementRef', id: other } })))[0]
  assert.ok(!(await idsOf(home, `verb=${encodeURIComponent(verb.id)}`)).includes(ref))
  // in acme, the verb matches its own voided copy, through its voiding statement (Communication 2.1.4), and nothing else
  assert.deepEqual(await idsOf(acme, `verb=${encodeURIComponent(verb.id)}`), [voiding])
})

test('a more token made in one store is refused in another, whoever sends it', async () => {
  const { lrs, acme, home } = await twoStores()
  const verb = { id: `http://example.com/verbs/${crypto.randomUUID()}` }
  await post(home, Array.from({ length: 5 }, () => statement({ verb })))
  await post(acme, Array.from({ length: 3 }, () => statement({ verb })))
  const first = await home(`/statements?verb=${encodeURIComponent(verb.id)}&limit=2`)
  assert.ok(first.json.more)
  const more = first.json.more.replace(/^\/xapi/, '')
  for (const replayed of [await acme(more), await lrs.client(more, { headers: { 'X-LRS-Store': 'acme' } })]) {
    assert.equal(replayed.status, 400, replayed.text)
    assert.match(replayed.json.message, /more is not a valid continuation token/)
  }
  // in its own store it goes on
  assert.equal((await home(more)).json.statements.length, 2)
  assert.equal((await lrs.client(more)).json.statements.length, 2)
})

test('documents of one store are not found, listed, overwritten or deleted through another', async () => {
  const { acme, home } = await twoStores()
  const agent = encodeURIComponent(JSON.stringify({ mbox: `mailto:doc-${crypto.randomUUID()}@example.com` }))
  const activityId = encodeURIComponent(`http://example.com/activities/${crypto.randomUUID()}`)
  const state = `/activities/state?activityId=${activityId}&agent=${agent}&stateId=bookmark`
  const profile = `/activities/profile?activityId=${activityId}&profileId=p1`
  for (const [path, list] of [[state, `/activities/state?activityId=${activityId}&agent=${agent}`], [profile, `/activities/profile?activityId=${activityId}`]]) {
    const put = await home(path, { method: 'PUT', body: { store: 'home' }, headers: { 'If-None-Match': '*' } })
    assert.equal(put.status, 204, `${path}: ${put.text}`)
    assert.equal((await acme(path)).status, 404)
    assert.deepEqual((await acme(list)).json, [])
    // acme's own document of the same key: a new one (If-None-Match: * holds)
    assert.equal((await acme(path, { method: 'PUT', body: { store: 'acme' }, headers: { 'If-None-Match': '*' } })).status, 204)
    assert.deepEqual((await home(path)).json, { store: 'home' })
    assert.deepEqual((await acme(path)).json, { store: 'acme' })
    assert.equal((await acme(path, { method: 'DELETE', headers: path === profile ? { 'If-Match': '*' } : {} })).status, 204)
    assert.deepEqual((await home(path)).json, { store: 'home' })
  }
})

test('an attachment stored in one store is not served with a statement of another', async () => {
  const { acme, home } = await twoStores()
  const content = Buffer.from(`attachment ${crypto.randomUUID()}`)
  const sha2 = crypto.createHash('sha256').update(content).digest('hex')
  const attachment = { usageType: 'http://example.com/usage', display: { 'en-US': 'a file' }, contentType: 'text/plain', length: content.length, sha2 }
  const body = statement({ attachments: [attachment] })
  const boundary = 'xapi-test'
  const multipart = buildMultipart([{ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }, { headers: { 'Content-Type': 'text/plain', 'Content-Transfer-Encoding': 'binary', 'X-Experience-API-Hash': sha2 }, body: content }], boundary)
  const stored = await home('/statements', { method: 'POST', body: multipart, raw: true, headers: { 'Content-Type': `multipart/mixed; boundary=${boundary}` } })
  assert.equal(stored.status, 200, stored.text)
  // acme declares the same hash with a fileUrl and sends no content
  const [id] = await post(acme, statement({ attachments: [{ ...attachment, fileUrl: 'http://example.com/file.txt' }] }))
  const res = await acme(`/statements?statementId=${id}&attachments=true`)
  assert.equal(res.status, 200)
  assert.ok(!res.buffer.includes(content), 'the default store\'s attachment was served to acme')
  const own = await home(`/statements?statementId=${stored.json[0]}&attachments=true`)
  assert.ok(own.buffer.includes(content))
})

test('an Activity\'s definition given in one store is not shown through another (GET /activities)', async () => {
  const { acme, home } = await twoStores()
  const id = `http://example.com/activities/${crypto.randomUUID()}`
  const object = (name) => ({ objectType: 'Activity', id, definition: { name: { 'en-US': name }, type: 'http://adlnet.gov/expapi/activities/course' } })
  await post(acme, statement({ object: object('ACME internal course') }))
  const path = `/activities?activityId=${encodeURIComponent(id)}`
  assert.deepEqual((await home(path)).json, { objectType: 'Activity', id }, 'unknown in the default store')
  await post(home, statement({ object: object('Home course') }))
  assert.deepEqual((await home(path)).json.definition.name, { 'en-US': 'Home course' })
  assert.deepEqual((await acme(path)).json.definition.name, { 'en-US': 'ACME internal course' })
})

test('a store\'s admin sees and manages its own store only; stores/admin manages the stores', async () => {
  const { lrs, acme, home, acmeAdmin, homeAdmin } = await twoStores()
  const learner = { mbox: `mailto:erase-${crypto.randomUUID()}@example.com` }
  await post(home, statement({ actor: learner }))
  await post(acme, statement({ actor: learner }))
  await post(acme, statement())

  // the stores: for stores/admin only
  assert.equal((await acmeAdmin('/admin/stores')).status, 403)
  assert.equal((await acmeAdmin('/admin/stores', { method: 'POST', body: { id: 'mine' } })).status, 403)
  const stores = await lrs.http('/admin/stores')
  assert.equal(stores.status, 200)
  assert.deepEqual(stores.json.stores.map((s) => [s.id, s.statements]), [['default', 1], ['acme', 2]])
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme' } })).status, 409)
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'Not An Id' } })).status, 400)
  // renamed: the name changes, the id and the data stay
  const renamed = await lrs.http('/admin/stores/acme', { method: 'PUT', body: { name: 'ACME Corporation' } })
  assert.equal(renamed.status, 200, renamed.text)
  assert.deepEqual([renamed.json.id, renamed.json.name, renamed.json.statements], ['acme', 'ACME Corporation', 2])
  assert.equal((await lrs.http('/admin/stores/default', { method: 'PUT', body: { name: 'Our courses' } })).json.name, 'Our courses')
  assert.deepEqual((await lrs.http('/admin/stores')).json.stores.map((s) => s.name), ['Our courses', 'ACME Corporation'])
  assert.equal((await lrs.http('/admin/stores/nowhere', { method: 'PUT', body: { name: 'x' } })).status, 404)
  assert.equal((await acmeAdmin('/admin/stores/acme', { method: 'PUT', body: { name: 'mine' } })).status, 403)

  // credentials: acme's admin lists acme's, cannot make one elsewhere or give stores/admin
  const listed = await acmeAdmin('/admin/credentials')
  assert.ok(listed.json.credentials.every((c) => c.store === 'acme'), listed.text)
  assert.ok(!listed.json.credentials.some((c) => c.key === ADMIN.user))
  assert.equal((await acmeAdmin('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: 'default' } })).status, 404)
  assert.equal((await acmeAdmin('/admin/credentials', { method: 'POST', body: { scopes: ['stores/admin'] } })).status, 403)
  const made = await acmeAdmin('/admin/credentials', { method: 'POST', body: { scopes: ['statements/read'] } })
  assert.equal(made.json.store, 'acme')
  const homeKey = (await lrs.http('/admin/credentials')).json.credentials.find((c) => c.store === 'default' && c.key !== ADMIN.user).key
  assert.equal((await acmeAdmin(`/admin/credentials/${homeKey}`, { method: 'DELETE' })).status, 404)
  assert.equal((await acmeAdmin(`/admin/credentials/${homeKey}`, { method: 'PUT', body: { scopes: ['all'] } })).status, 404)
  // the bootstrap credential is another store's too: 404, as any other
  // store's (a 409 would tell acme's admin that it exists)
  assert.equal((await acmeAdmin(`/admin/credentials/${ADMIN.user}`, { method: 'DELETE' })).status, 404)
  assert.equal((await acmeAdmin(`/admin/credentials/${ADMIN.user}`, { method: 'PUT', body: { scopes: ['all'] } })).status, 404)
  assert.equal((await lrs.http(`/admin/credentials/${ADMIN.user}`, { method: 'DELETE' })).status, 409)

  // metrics cover every store (and name them): not for a store's admin;
  // the default store's admin and stores/admin, acting in acme or not, read them
  const refused = await acmeAdmin('/metrics')
  assert.equal(refused.status, 403)
  assert.match(refused.json.message, /default store|stores\/admin/)
  const acmeMetrics = (await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['metrics'], store: 'acme' } })).json
  assert.equal((await lrs.http('/metrics', { auth: [acmeMetrics.key, acmeMetrics.secret] })).status, 403)
  assert.equal((await homeAdmin('/metrics')).status, 200)
  assert.equal((await lrs.http('/metrics', { headers: { 'X-LRS-Store': 'acme' } })).status, 200)

  // overview and export: acme's statements only
  assert.equal((await acmeAdmin('/admin/overview')).json.total, 2)
  assert.equal((await lrs.http('/admin/overview')).json.total, 1)
  const exported = (await acmeAdmin('/admin/statements/export')).text.trim().split('\n')
  assert.equal(exported.length, 2)
  // forwarding: only its own upstreams (none here), never the LRS-wide ones
  assert.deepEqual((await acmeAdmin('/admin/forwarding/upstreams')).json, { upstreams: [] })

  // erasure in acme leaves the learner's statements in the default store,
  // and its preview counts acme's only (the default store's learner is not
  // counted from acme, nor acme's from the default store)
  const agentQuery = `/admin/agents?agent=${encodeURIComponent(JSON.stringify(learner))}`
  assert.equal((await acmeAdmin(agentQuery)).json.wouldRemove.statements, 1)
  assert.equal((await lrs.http(agentQuery)).json.wouldRemove.statements, 1)
  const homeOnlyLearner = { mbox: `mailto:home-only-${crypto.randomUUID()}@example.com` }
  await post(home, statement({ actor: homeOnlyLearner }))
  const homeOnlyQuery = `/admin/agents?agent=${encodeURIComponent(JSON.stringify(homeOnlyLearner))}`
  assert.equal((await lrs.http(homeOnlyQuery)).json.wouldRemove.statements, 1)
  assert.deepEqual((await acmeAdmin(homeOnlyQuery)).json.wouldRemove, { statements: 0, stateDocuments: 0, agentProfileDocuments: 0 })
  const erased = await acmeAdmin(`/admin/agents?agent=${encodeURIComponent(JSON.stringify(learner))}`, { method: 'DELETE' })
  assert.equal(erased.status, 200, erased.text)
  assert.equal(erased.json.removed.statements, 1)
  assert.deepEqual(await idsOf(acme, `agent=${encodeURIComponent(JSON.stringify(learner))}`), [])
  assert.equal((await idsOf(home, `agent=${encodeURIComponent(JSON.stringify(learner))}`)).length, 1)
})

test('a store written before stores is the default store after the upgrade: its statements, documents and credentials stay there, a new store sees none of them', async () => {
  const first = await startLrs()
  const made = await first.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'] } })
  const old = [made.json.key, made.json.secret]
  const verb = { id: `http://example.com/verbs/${crypto.randomUUID()}` }
  const ids = await post((path, options = {}) => first.client(path, { auth: old, ...options }), Array.from({ length: 3 }, () => statement({ verb })))
  const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:old@example.com' }))
  const state = `/activities/state?activityId=${encodeURIComponent('http://example.com/a')}&agent=${agent}&stateId=s`
  assert.equal((await first.client(state, { method: 'PUT', body: { old: true } })).status, 204)
  const env = { ...first.storeEnv }
  await first.close({ graceMs: 0 })
  // back to what the LRS wrote before stores
  if (first.engine === 'sqlite') asSchema10(env.LRS_DATA_DIR).close()
  else await withDatabase(env, (db) => db.collection('credentials').updateMany({}, { $unset: { store: '' } }))

  const lrs = await startLrs(env)
  assert.deepEqual((await lrs.http('/admin/stores')).json.stores.map((s) => [s.id, s.statements]), [['default', 3]])
  const inOld = await idsOf((path, options = {}) => lrs.client(path, { auth: old, ...options }), `verb=${encodeURIComponent(verb.id)}`)
  assert.deepEqual([...inOld].sort(), [...ids].sort())
  assert.equal((await lrs.http('/admin/credentials')).json.credentials.find((c) => c.key === old[0]).store, 'default')
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme' } })).status, 201)
  const acmeCredential = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: 'acme' } })
  const acme = (path, options = {}) => lrs.client(path, { auth: [acmeCredential.json.key, acmeCredential.json.secret], ...options })
  assert.deepEqual(await idsOf(acme, ''), [])
  assert.deepEqual(await idsOf(acme, `verb=${encodeURIComponent(verb.id)}`), [])
  assert.equal((await acme(`/statements?statementId=${ids[0]}`)).status, 404)
  assert.equal((await acme(state)).status, 404)
  assert.deepEqual((await lrs.client(state)).json, { old: true })
})

// Issue 55: the default store says when the LRS first made its data, on
// either engine, and keeps saying it after a restart and a rename.
test('the default store\'s createdAt is when the LRS first made its data; a restart or a rename keeps it', async () => {
  const before = Date.now()
  const first = await startLrs()
  const started = Date.now()
  const createdAt = async (lrs) => (await lrs.http('/admin/stores')).json.stores.find((s) => s.id === 'default').createdAt
  const made = await createdAt(first)
  assert.equal(typeof made, 'string', 'a time, not null')
  // SQLite keeps milliseconds, so does MongoDB: within the start
  assert.ok(Date.parse(made) >= before && Date.parse(made) <= started, `${made} between ${new Date(before).toISOString()} and ${new Date(started).toISOString()}`)
  assert.equal((await first.http('/admin/stores/default')).json.createdAt, made)
  const env = { ...first.storeEnv }
  await first.close({ graceMs: 0 })

  const again = await startLrs(env)
  assert.equal(await createdAt(again), made, 'the same after a restart')
  assert.equal((await again.http('/admin/stores/default', { method: 'PUT', body: { name: 'Our courses' } })).status, 200)
  assert.equal(await createdAt(again), made, 'the same after a rename')
  if (again.engine !== 'mongodb') return

  // a database of an LRS that did not record it: the earliest time it
  // kept, its oldest credential's (here the bootstrap one's)
  await again.close({ graceMs: 0 })
  const oldest = new Date('2024-03-01T10:00:00.000Z')
  await withDatabase(env, async (db) => {
    await db.collection('settings').deleteOne({ _id: 'created_at' })
    await db.collection('credentials').updateOne({ _id: ADMIN.user }, { $set: { createdAt: oldest } })
    await db.collection('stores').updateOne({ _id: 'default' }, { $set: { createdAt: null } })
  })
  const upgraded = await startLrs(env)
  assert.equal(await createdAt(upgraded), oldest.toISOString())
})

async function withDatabase (env, fn) {
  const { MongoClient } = require('mongodb')
  const client = new MongoClient(env.MONGODB_URI)
  try {
    return await fn(client.db(env.MONGODB_DB))
  } finally {
    await client.close()
  }
}

test('SQLite: two stores\' statements through every index level stay apart, and lrs check finds nothing wrong', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async () => {
  const lrs = await startLrs({}, { hooks: { mergeStatements: 4, middleStatements: 8, levelRatio: 2 } })
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme' } })).status, 201)
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all', 'admin'], store: 'acme' } })
  const acme = (path, options = {}) => lrs.client(path, { auth: [made.json.key, made.json.secret], ...options })
  const learner = { mbox: `mailto:levels-${crypto.randomUUID()}@example.com` }
  const verb = { id: `http://example.com/verbs/${crypto.randomUUID()}` }
  const registration = crypto.randomUUID()
  const posted = { home: [], acme: [] }
  for (let i = 0; i < 40; i++) {
    const [name, client] = i % 2 ? ['acme', acme] : ['home', lrs.client]
    const batch = Array.from({ length: 4 }, () => statement({ id: crypto.randomUUID(), actor: learner, verb, context: { registration } }))
    posted[name].push(...await post(client, batch))
  }
  for (const [name, client] of [['home', lrs.client], ['acme', acme]]) {
    const newestFirst = [...posted[name]].reverse()
    for (const query of [`agent=${encodeURIComponent(JSON.stringify(learner))}`, `verb=${encodeURIComponent(verb.id)}`, `registration=${registration}`, `registration=${registration}&verb=${encodeURIComponent(verb.id)}`]) {
      assert.deepEqual(await idsOf(client, query), newestFirst, `${name}: ${query}`)
    }
    assert.deepEqual((await idsOf(client, '')).filter((id) => newestFirst.includes(id) || posted[name === 'home' ? 'acme' : 'home'].includes(id)), newestFirst, `${name}: unfiltered`)
  }
  const overview = await lrs.http('/admin/overview', { auth: [made.json.key, made.json.secret] })
  assert.equal(overview.json.total, 80, overview.text)
  assert.deepEqual(overview.json.verbs.map((v) => [v.verb, v.count]), [[verb.id, 80]])
  await lrs.close({ graceMs: 0 })
  assert.deepEqual(checkSqliteStore({ dataDir: lrs.storeEnv.LRS_DATA_DIR }).problems, [])
})

test('the default store beside other stores: an unfiltered query finds what it held before the first store and after, in either order and page by page, and nothing of another store', async () => {
  const lrs = await startLrs()
  const home = lrs.client
  const batch = (n) => Array.from({ length: n }, () => statement({ id: crypto.randomUUID() }))
  const before = await post(home, batch(5))
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme' } })).status, 201)
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: 'acme' } })
  const acme = (path, options = {}) => lrs.client(path, { auth: [made.json.key, made.json.secret], ...options })
  const inAcme = []
  const after = []
  for (let i = 0; i < 4; i++) {
    inAcme.push(...await post(acme, batch(6)))
    after.push(...await post(home, batch(2)))
  }
  // statements stored in one millisecond come in an order of the engine's
  // (MongoDB's is by id): the order asked for is that of the groups
  const grouped = (ids, groups) => {
    let at = 0
    return groups.map((group) => new Set(ids.slice(at, (at += group.length))))
  }
  const sets = (groups) => groups.map((group) => new Set(group))
  assert.deepEqual(grouped(await idsOf(home, ''), [after, before]), sets([after, before]), 'newest first')
  assert.deepEqual(grouped(await idsOf(home, 'ascending=true'), [before, after]), sets([before, after]), 'oldest first')
  assert.equal((await idsOf(home, '')).length, before.length + after.length, 'none of another store')
  const lastBefore = (await home(`/statements?statementId=${before.at(-1)}`)).json.stored
  assert.deepEqual(new Set(await idsOf(home, `since=${encodeURIComponent(lastBefore)}&ascending=true`)), new Set(after), 'since the last statement before the store')
  assert.deepEqual(new Set(await idsOf(home, `until=${encodeURIComponent(lastBefore)}`)), new Set(before), 'until it')
  assert.deepEqual(new Set(await idsOf(acme, '')), new Set(inAcme), 'the other store its own')
  // a voided statement of the default store leaves its unfiltered query, before the first store and after
  const voiding = []
  for (const id of [before[0], after[0]]) voiding.push(...await post(home, statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id } })))
  assert.deepEqual(new Set(await idsOf(home, '')), new Set([...before.slice(1), ...after.slice(1), ...voiding]))
})

test('each store\'s export, and its statements page by page by stored time (what retention and delete by range walk), are its own, voided ones included, before the first other store and after', async () => {
  const lrs = await startLrs()
  const batch = (n) => Array.from({ length: n }, () => statement({ id: crypto.randomUUID() }))
  const home = [...await post(lrs.client, batch(3))]
  const clients = {}
  const own = { acme: [], beta: [] }
  for (const id of ['acme', 'beta']) {
    assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id } })).status, 201)
    const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: id } })
    clients[id] = (path, options = {}) => lrs.client(path, { auth: [made.json.key, made.json.secret], ...options })
  }
  for (let i = 0; i < 3; i++) {
    own.acme.push(...await post(clients.acme, batch(2)))
    own.beta.push(...await post(clients.beta, batch(3)))
    home.push(...await post(lrs.client, batch(1)))
  }
  // a voided statement is exported with its voiding statement
  own.acme.push(...await post(clients.acme, statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: own.acme[0] } })))
  home.push(...await post(lrs.client, statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: home[0] } })))
  const storeHeader = (id) => id === 'default' ? {} : { 'X-LRS-Store': id }
  for (const [id, ids] of [['default', home], ['acme', own.acme], ['beta', own.beta]]) {
    const exported = await lrs.http('/admin/statements/export', { headers: storeHeader(id) })
    assert.equal(exported.status, 200)
    assert.deepEqual(new Set(exported.text.trim().split('\n').map((line) => JSON.parse(line).id)), new Set(ids), `export of ${id}`)
    // two at a time, as an export or a retention slice pages through them
    const { number } = (await lrs.storage.stores.all()).find((x) => x.id === id)
    const paged = []
    let after = null
    for (;;) {
      const rows = await lrs.storage.statements.scan({ after, limit: 2, store: number })
      if (!rows.length) break
      paged.push(...rows)
      after = rows.at(-1).position
    }
    assert.deepEqual(new Set(paged.map((r) => r.id.replace(/^s\d+\|/, ''))), new Set(ids), `${id}, page by page`)
    assert.equal(paged.length, ids.length, `${id}: each once`)
    if (ENGINE === 'sqlite') { // (MongoDB pages by statement id)
      const stored = paged.map((r) => r.stored.getTime())
      assert.deepEqual(stored, [...stored].sort((a, b) => a - b), `${id}: in stored order`)
    }
    // since and until split them, none lost or twice
    const middle = paged[Math.floor(paged.length / 2)].stored
    const [before, after2] = await Promise.all([lrs.storage.statements.scan({ until: middle, limit: 100, store: number }), lrs.storage.statements.scan({ since: middle, limit: 100, store: number })])
    assert.equal(before.length + after2.length, ids.length, `${id}: until and since`)
  }
})

test('SQLite: a default store statement stored before the first store and moved after it (Consistent-Through) is still found, and lrs check finds nothing wrong', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async () => {
  const lrs = await startLrs()
  const moved = await post(lrs.client, [statement({ id: crypto.randomUUID() }), statement({ id: crypto.randomUUID() })])
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme' } })).status, 201)
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: 'acme' } })
  await post((path, options = {}) => lrs.client(path, { auth: [made.json.key, made.json.secret], ...options }), [statement(), statement()])
  const later = await post(lrs.client, [statement({ id: crypto.randomUUID() })])
  await lrs.storage.statements.restamp(moved, new Date(Date.now() + 1000))
  assert.deepEqual(await idsOf(lrs.client, 'ascending=true'), [...later, ...moved])
  await lrs.close({ graceMs: 0 })
  assert.deepEqual(checkSqliteStore({ dataDir: lrs.storeEnv.LRS_DATA_DIR }).problems, [])
})

test('SQLite: a store whose default store got no store term beside other stores (before it had one) is upgraded in place: its unfiltered query finds every statement of it, old and new', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async () => {
  const first = await startLrs()
  const before = await post(first.client, [statement({ id: crypto.randomUUID() }), statement({ id: crypto.randomUUID() })])
  assert.equal((await first.http('/admin/stores', { method: 'POST', body: { id: 'acme' } })).status, 201)
  const made = await first.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: 'acme' } })
  const auth = [made.json.key, made.json.secret]
  const acme = (lrs) => (path, options = {}) => lrs.client(path, { auth, ...options })
  await post(acme(first), [statement(), statement()])
  const between = await post(first.client, [statement({ id: crypto.randomUUID() })])
  await first.close({ graceMs: 0 })
  withoutDefaultStoreTerm(first.storeEnv.LRS_DATA_DIR).close()

  const lrs = await startLrs({ ...first.storeEnv })
  await post(acme(lrs), [statement()])
  const later = await post(lrs.client, [statement({ id: crypto.randomUUID() })])
  assert.deepEqual(await idsOf(lrs.client, 'ascending=true'), [...before, ...between, ...later])
  assert.deepEqual(await idsOf(lrs.client, ''), [...before, ...between, ...later].reverse())
  // what came after the upgrade is found by the store term: the walk steps over no other store's statements
  const plan = (await lrs.storage.statements.explainQuery(statementQuery({ limit: 10 }))).join(' | ')
  assert.match(plan, /_terms/, plan)
  await lrs.close({ graceMs: 0 })
  assert.deepEqual(checkSqliteStore({ dataDir: lrs.storeEnv.LRS_DATA_DIR }).problems, [])
})

test('SQLite: past 2,047 stores besides the default one, a new store is refused with a clear 409', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async () => {
  const lrs = await startLrs()
  for (let i = 1; i < 2048; i++) assert.equal(await lrs.storage.stores.create({ id: `s-${i}`, name: `s-${i}` }), 'created')
  const refused = await lrs.http('/admin/stores', { method: 'POST', body: { id: 'one-more' } })
  assert.equal(refused.status, 409)
  assert.equal(refused.json.code, 'LRS_ERR_STORE_LIMIT')
  assert.equal((await lrs.http('/admin/stores')).json.stores.length, 2048)
})

test('X-LRS-Store: a stores/admin credential acts in the store it names; no other credential may name one', async () => {
  const { lrs, acme, acmeAdmin } = await twoStores()
  const [id] = await post(acme, statement())
  const inAcme = { 'X-LRS-Store': 'acme' }
  // the bootstrap credential (stores/admin) reads, writes and administers acme
  assert.equal((await lrs.client(`/statements?statementId=${id}`)).status, 404, 'without the header, its own store')
  assert.equal((await lrs.client(`/statements?statementId=${id}`, { headers: inAcme })).json.id, id)
  const [written] = (await lrs.client('/statements', { method: 'POST', body: statement(), headers: inAcme })).json
  assert.equal((await acme(`/statements?statementId=${written}`)).status, 200, 'written into acme')
  assert.equal((await lrs.http('/admin/overview', { headers: inAcme })).json.total, 2)
  const exported = await lrs.http('/admin/statements/export', { headers: inAcme })
  assert.equal(exported.text.trim().split('\n').length, 2)
  // its credentials are acme's (the console's Credentials page with acme
  // chosen), and another store's cannot be changed there; without the
  // header, every store's
  const acmeKeys = (await lrs.http('/admin/credentials', { headers: inAcme })).json.credentials
  assert.ok(acmeKeys.length > 0 && acmeKeys.every((c) => c.store === 'acme'), JSON.stringify(acmeKeys))
  const all = (await lrs.http('/admin/credentials')).json.credentials
  assert.deepEqual([...new Set(all.map((c) => c.store))].sort(), ['acme', 'default'])
  const homeKey = all.find((c) => c.store === 'default' && c.key !== ADMIN.user).key
  assert.equal((await lrs.http(`/admin/credentials/${homeKey}`, { method: 'DELETE', headers: inAcme })).status, 404)
  assert.equal((await lrs.http(`/admin/credentials/${homeKey}`, { method: 'PUT', body: { scopes: ['all'] }, headers: inAcme })).status, 404)
  assert.ok((await lrs.http('/admin/credentials')).json.credentials.some((c) => c.key === homeKey), 'still there')
  // refused: another store's credential without stores/admin, an unknown store, a malformed id
  assert.equal((await acme('/statements', { headers: { 'X-LRS-Store': 'default' } })).status, 403)
  assert.equal((await acmeAdmin('/admin/credentials', { headers: { 'X-LRS-Store': 'default' } })).status, 403)
  assert.equal((await lrs.client('/statements', { headers: { 'X-LRS-Store': 'nowhere' } })).status, 404)
  assert.equal((await lrs.client('/statements', { headers: { 'X-LRS-Store': '../x' } })).status, 400)
})
