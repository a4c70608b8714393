'use strict'

// Issue 36: forwarding per store. A store's own upstreams get its
// statements and no other store's, under their own credentials; a store's
// admin sees and handles its own upstreams' queues and dead letters only;
// LRS_FORWARD_URLS still gets every store's statements.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { upstreamLrs } = require('../helpers/upstream-lrs')
const { until } = require('../helpers/wait')
const { storeWithAdmin, postStatements: post } = require('../helpers/stores')

test('a store\'s upstreams get its statements only, with their own credentials; the LRS-wide upstream gets every store\'s', async (t) => {
  const wide = await upstreamLrs()
  const upA = await upstreamLrs(undefined, { user: 'acme-user', password: 'acme-secret' })
  const upB = await upstreamLrs(undefined, { user: 'beta-user', password: 'beta-secret' })
  t.after(() => { for (const u of [wide, upA, upB]) u.server.close() })
  const lrs = await startLrs({ LRS_FORWARD_URLS: wide.url })
  const acme = await storeWithAdmin(lrs, 'acme')
  const beta = await storeWithAdmin(lrs, 'beta')

  const setA = await lrs.http('/admin/stores/acme', { method: 'PUT', body: { forwardUrls: [upA.url] } })
  assert.equal(setA.status, 200, setA.text)
  assert.deepEqual(setA.json.forwardTo, [upA.url.replace('acme-user:acme-secret@', '')])
  assert.ok(!setA.text.includes('acme-secret'), 'the upstream\'s secret is never shown')
  assert.equal((await lrs.http('/admin/stores/beta', { method: 'PUT', body: { forwardUrls: [upB.url] } })).status, 200)
  assert.ok(!(await lrs.http('/admin/stores')).text.includes('secret'), 'nor in the list')

  // the same id in both stores, as two LRSs may hold it
  const shared = crypto.randomUUID()
  const acmeIds = await post(acme.xapi, [statement({ id: shared, result: { response: 'acme' } }), statement()])
  const betaIds = await post(beta.xapi, [statement({ id: shared, result: { response: 'beta' } }), statement()])
  const homeIds = await post(lrs.client, [statement()])

  const got = (up, ids) => ids.every((id) => up.received.some((s) => s.id === id))
  assert.ok(await until(() => got(upA, acmeIds) && got(upB, betaIds) && wide.received.length >= 5), 'delivered')
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.deepEqual(upA.received.map((s) => s.id).sort(), [...acmeIds].sort(), 'acme\'s upstream gets acme\'s statements only')
  assert.deepEqual(upB.received.map((s) => s.id).sort(), [...betaIds].sort(), 'beta\'s upstream gets beta\'s statements only')
  assert.equal(upA.received.find((s) => s.id === shared).result.response, 'acme')
  assert.equal(upB.received.find((s) => s.id === shared).result.response, 'beta')
  assert.ok(upA.requests.every((r) => r.auth === 'Basic ' + Buffer.from('acme-user:acme-secret').toString('base64')))
  assert.ok(upB.requests.every((r) => r.auth === 'Basic ' + Buffer.from('beta-user:beta-secret').toString('base64')))
  assert.equal(wide.received.length, 5, 'the LRS-wide upstream gets every store\'s')
  assert.ok(homeIds.every((id) => wide.received.some((s) => s.id === id)))

  // who sees which upstream
  const names = async (admin) => (await admin('/admin/forwarding/upstreams')).json.upstreams.map((u) => `${u.id} ${u.forwards}`)
  assert.deepEqual(await names(acme.admin), [`${upA.name} this store`])
  assert.deepEqual(await names(beta.admin), [`${upB.name} this store`])
  assert.deepEqual(await names(lrs.http), [`${wide.name} every store`])
  assert.deepEqual(await names((p, o = {}) => lrs.http(p, { ...o, headers: { 'X-LRS-Store': 'acme' } })), [`${wide.name} every store`, `${upA.name} this store`])

  // metrics: one series per store upstream, labelled with the store
  const metrics = (await lrs.http('/metrics')).text
  assert.match(metrics, new RegExp(`lrs_forward_outbox_entries\\{upstream="${upA.name}",store="acme"\\} 0`))
  assert.match(metrics, new RegExp(`lrs_forward_outbox_entries\\{upstream="${wide.name}"\\} 0`))

  // taken away: later statements are not forwarded there
  const cleared = await lrs.http('/admin/stores/acme', { method: 'PUT', body: { forwardUrls: [] } })
  assert.deepEqual(cleared.json.forwardTo, [])
  assert.deepEqual(await names(acme.admin), [])
  const later = await post(acme.xapi, [statement()])
  assert.ok(await until(() => wide.received.some((s) => s.id === later[0])))
  await new Promise((resolve) => setTimeout(resolve, 1500))
  assert.ok(!upA.received.some((s) => s.id === later[0]), 'not forwarded once removed')
})

test('a store\'s dead letters are its admin\'s: listed with its ids, replayed and discarded there, untouched from another store', async (t) => {
  const upA = await upstreamLrs(() => 400)
  const upB = await upstreamLrs(() => 400)
  t.after(() => { upA.server.close(); upB.server.close() })
  const lrs = await startLrs()
  const acme = await storeWithAdmin(lrs, 'acme')
  const beta = await storeWithAdmin(lrs, 'beta')
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'gamma', forwardUrls: [upA.url] } })).status, 201, 'set at creation too')
  assert.deepEqual((await lrs.http('/admin/stores/gamma')).json.forwardTo, [upA.url.replace('fwd:pw@', '')])
  for (const [id, up] of [['acme', upA], ['beta', upB]]) assert.equal((await lrs.http(`/admin/stores/${id}`, { method: 'PUT', body: { forwardUrls: [up.url] } })).status, 200)

  const acmeIds = await post(acme.xapi, [statement(), statement()])
  const betaIds = await post(beta.xapi, [statement()])
  const dead = async (admin, query = '') => (await admin('/admin/forwarding/dead-letters' + query)).json.deadLetters
  assert.ok(await until(async () => (await dead(acme.admin)).length === 2 && (await dead(beta.admin)).length === 1), 'dead letters')
  const listed = await dead(acme.admin)
  assert.deepEqual(listed.map((d) => d.statementId).sort(), [...acmeIds].sort(), 'with the ids the store knows')
  assert.ok(listed.every((d) => d.upstream === upA.name && d.forwards === 'this store' && d.status === 400))
  assert.deepEqual(await dead(lrs.http), [], 'the default store sees none of them')

  // beta's admin names acme's upstream: nothing of acme's moves
  const fromBeta = (action) => beta.admin(`/admin/forwarding/dead-letters/${action}`, { method: 'POST', body: { upstream: upA.name } })
  assert.deepEqual((await fromBeta('discard')).json, { discarded: 0 })
  assert.deepEqual((await fromBeta('replay')).json, { replayed: 0 })
  assert.equal((await dead(acme.admin)).length, 2)
  assert.deepEqual((await dead(beta.admin, `?upstream=${encodeURIComponent(upA.name)}`)), [])

  // acme's admin replays its own; they go once the upstream takes them
  upA.server.answer = () => 200
  assert.deepEqual((await acme.admin('/admin/forwarding/dead-letters/replay', { method: 'POST', body: {} })).json, { replayed: 2 })
  assert.ok(await until(() => acmeIds.every((id) => upA.received.some((s) => s.id === id))))
  assert.deepEqual((await beta.admin('/admin/forwarding/dead-letters/discard', { method: 'POST', body: {} })).json, { discarded: 1 })
  assert.deepEqual(await dead(beta.admin), [])
  assert.ok(betaIds.length)

  // a deleted store's upstreams stop, their entries with them
  upB.server.answer = () => 503
  await post(beta.xapi, [statement()])
  assert.ok(await until(async () => (await beta.admin('/admin/forwarding/upstreams')).json.upstreams[0].queued === 1))
  assert.equal((await lrs.http('/admin/stores/beta?confirm=beta', { method: 'DELETE' })).status, 202)
  assert.ok(await until(async () => !(await lrs.http('/metrics')).text.includes(`upstream="${upB.name}",store="beta"`)), 'gone from the metrics')
  const storeNumber = (await lrs.storage.stores.deleting()).find((s) => s.id === 'beta').number
  assert.deepEqual(await lrs.storage.outbox.stats(`s${storeNumber}|${upB.name}`), { queued: 0, oldestEnqueuedAt: null, deadLetters: 0 })
})

test('store upstreams: bad URLs get 400 with a message, and only stores/admin may set them', async () => {
  const lrs = await startLrs()
  const acme = await storeWithAdmin(lrs, 'acme')
  const put = (forwardUrls, as = lrs.http) => as('/admin/stores/acme', { method: 'PUT', body: { forwardUrls } })
  for (const bad of [['ftp://lrs.example.com/xapi'], ['not a url'], ['https://lrs.example.com/xapi?x=1'], ['https://lrs.example.com/xapi#top'],
    ['https://user@lrs.example.com/xapi'], Array.from({ length: 6 }, (_, i) => `https://lrs${i}.example.com/xapi`),
    ['https://lrs.example.com/xapi', 'https://other:pw@lrs.example.com/xapi/'], 'https://lrs.example.com/xapi', [''], [42]]) {
    const res = await put(bad)
    assert.equal(res.status, 400, `${JSON.stringify(bad)}: ${res.text}`)
    assert.equal(typeof res.json.message, 'string')
    assert.ok(!res.text.includes('pw'), 'no credential echoed')
  }
  assert.equal((await put(['https://u:p@lrs.example.com/xapi'], acme.admin)).status, 403, 'a store\'s admin cannot point its statements elsewhere')
  assert.equal((await lrs.http('/admin/stores/nowhere', { method: 'PUT', body: { forwardUrls: [] } })).status, 404)
  assert.deepEqual((await lrs.http('/admin/stores/acme')).json.forwardTo, [], 'nothing was set')
  const ok = await put(['https://u:p@lrs.example.com/xapi'])
  assert.equal(ok.status, 200)
  assert.deepEqual(ok.json.forwardTo, ['https://lrs.example.com/xapi'])
})
