'use strict'

// Issue 36: deleting a store's statements by stored time (an admin's
// delete, with its preview) and a store's retention. A voided statement and
// its voiding statement go together; other stores, and statements outside
// the range, stay.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { until } = require('../helpers/wait')

const DAY_MS = 86400000

async function storeWithCredential (lrs, id, body = {}) {
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id, ...body } })).status, 201)
  const res = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all', 'admin'], store: id } })
  assert.equal(res.status, 201, res.text)
  const auth = [res.json.key, res.json.secret]
  return { auth, client: (path, options = {}) => lrs.client(path, { auth, ...options }), admin: (path, options = {}) => lrs.http(path, { auth, ...options }) }
}

async function post (client, body) {
  const res = await client('/statements', { method: 'POST', body })
  assert.equal(res.status, 200, res.text)
  return res.json
}

const voiding = (id) => statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id } })
const found = async (client, id) => (await client(`/statements?statementId=${id}`)).status === 200 || (await client(`/statements?voidedStatementId=${id}`)).status === 200

test('deleting by stored time: the range, and the voiding statements of voided ones in it; a preview first; nothing of another store', async () => {
  const lrs = await startLrs()
  const acme = await storeWithCredential(lrs, 'acme')
  const [first, second] = await post(acme.client, [statement(), statement()])
  const cut = (await acme.client(`/statements?statementId=${second}`)).json.stored
  await new Promise((resolve) => setTimeout(resolve, 5)) // stored after the cut
  const [voider, later, ref] = await post(acme.client, [voiding(first), statement(), statement({ object: { objectType: 'StatementRef', id: second } })])
  const [home] = await post(lrs.client, statement())
  const before = encodeURIComponent(cut)

  const preview = await acme.admin(`/admin/statements/deletion?until=${before}`)
  assert.equal(preview.status, 200, preview.text)
  assert.deepEqual(preview.json.wouldRemove, { statements: 3, outsideTheRange: 1 })
  for (const id of [first, second, voider, later, ref, home]) assert.ok(await found(id === home ? lrs.client : acme.client, id), 'a preview removes nothing')

  assert.equal((await acme.admin('/admin/statements', { method: 'DELETE' })).status, 400, 'until is required')
  assert.equal((await acme.admin(`/admin/statements?until=${before}&since=${encodeURIComponent(new Date(Date.parse(cut) + 1000).toISOString())}`, { method: 'DELETE' })).status, 400, 'since after until')
  const deleted = await acme.admin(`/admin/statements?until=${before}`, { method: 'DELETE' })
  assert.equal(deleted.status, 200, deleted.text)
  assert.equal(deleted.json.removed.statements, 3)
  assert.equal(deleted.json.range.until, new Date(cut).toISOString())
  for (const id of [first, second, voider]) assert.equal(await found(acme.client, id), false, id)
  for (const id of [later, ref]) assert.ok(await found(acme.client, id), 'outside the range, and a StatementRef that does not void, stay')
  assert.ok(await found(lrs.client, home), 'the default store\'s statement in the range stays')
  assert.equal((await lrs.http('/admin/stores/acme')).json.statements, 2)
})

test('a store\'s retention removes its statements older than its days, a voided one with its voiding statement, and nothing of stores that keep theirs longer', async () => {
  const logLines = []
  // the retention job's clock is two days ahead: what is stored now is two days old for it
  const lrs = await startLrs({ LRS_LOG_LEVEL: 'info' }, { hooks: { retentionIntervalMs: 100, now: () => Date.now() + 2 * DAY_MS }, logLines })
  const short = await storeWithCredential(lrs, 'short')
  const long = await storeWithCredential(lrs, 'long', { retentionDays: 3 })
  const forGood = await storeWithCredential(lrs, 'for-good')
  const [a, b] = await post(short.client, [statement({ result: { response: 'secret answer' } }), statement()])
  await post(short.client, voiding(a))
  const kept = [...await post(long.client, [statement(), statement()]), ...await post(forGood.client, statement()), ...await post(lrs.client, statement())]
  assert.equal((await lrs.http('/admin/stores/long')).json.retentionDays, 3)

  for (const days of [0, 36501, 1.5, '7']) assert.equal((await lrs.http('/admin/stores/short', { method: 'PUT', body: { retentionDays: days } })).status, 400, String(days))
  assert.equal((await lrs.http('/admin/stores/nowhere', { method: 'PUT', body: { retentionDays: 1 } })).status, 404)
  const set = await lrs.http('/admin/stores/short', { method: 'PUT', body: { retentionDays: 1 } })
  assert.equal(set.status, 200, set.text)
  assert.equal(set.json.retentionDays, 1)

  assert.ok(await until(async () => (await lrs.http('/admin/stores/short')).json.statements === 0), 'the short store is emptied')
  for (const id of [a, b]) assert.equal(await found(short.client, id), false)
  const clients = [long.client, long.client, forGood.client, lrs.client]
  for (const [i, id] of kept.entries()) assert.ok(await found(clients[i], id), 'kept where the retention is longer, or none')
  const line = logLines.find((l) => l.audit === 'retention')
  assert.equal(line.store, 'short')
  assert.equal(line.removed.statements, 3)
  assert.ok(!JSON.stringify(logLines).includes('secret answer'), 'the log has counts, never contents')

  assert.equal((await lrs.http('/admin/stores/short', { method: 'PUT', body: { retentionDays: null } })).json.retentionDays, null)
  const [c] = await post(short.client, statement())
  await new Promise((resolve) => setTimeout(resolve, 500)) // runs of the job
  assert.ok(await found(short.client, c), 'kept for good again')
})
