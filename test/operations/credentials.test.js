'use strict'

// The credentials lifecycle through /admin: create (secret shown once),
// list without secrets, change scopes, revoke; a change reaches another
// worker on the same store within a second.

const test = require('node:test')
const assert = require('node:assert/strict')
const { startLrs, ADMIN } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { timeUntil, until } = require('../helpers/wait')

test('a credential is created with its secret shown once, listed without it, and works for xAPI', async () => {
  const lrs = await startLrs()
  const created = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['statements/write', 'statements/read/mine'] } })
  assert.equal(created.status, 201)
  assert.match(created.json.key, /^[0-9a-f]{24}$/)
  assert.ok(created.json.secret.length >= 24)
  assert.deepEqual(created.json.scopes, ['statements/write', 'statements/read/mine'])
  assert.equal(created.json.store, 'default', 'the calling credential\'s store')

  const list = await lrs.http('/admin/credentials')
  assert.equal(list.status, 200)
  const listed = list.json.credentials.find((c) => c.key === created.json.key)
  assert.deepEqual(Object.keys(listed).sort(), ['bootstrap', 'createdAt', 'key', 'lastUsedAt', 'scopes', 'store'])
  assert.equal(listed.store, 'default')
  assert.equal(listed.lastUsedAt, null, 'not used yet')
  assert.ok(!list.text.includes(created.json.secret) && !list.text.includes('scrypt'))
  assert.equal(list.json.credentials.find((c) => c.key === ADMIN.user).bootstrap, true)

  const auth = [created.json.key, created.json.secret]
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement(), auth })).status, 200)
  assert.equal((await lrs.client('/activities/state?activityId=http://example.com/a&agent={"mbox":"mailto:a@example.com"}&stateId=s', { auth })).status, 403)
})

test('a credential\'s last use is listed, written at its first request and not again within the minute; a key made again starts unused', async () => {
  const lrs = await startLrs()
  const auth = ['lms', 'a-long-enough-secret']
  const make = async () => assert.equal((await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'lms', secret: auth[1], scopes: ['all'] } })).status, 201)
  const lastUsed = async () => (await lrs.http('/admin/credentials')).json.credentials.find((c) => c.key === 'lms').lastUsedAt
  await make()
  assert.equal(await lastUsed(), null)

  const before = Date.now()
  assert.equal((await lrs.client('/statements?limit=1', { auth })).status, 200)
  const after = Date.now()
  assert.ok(await until(async () => (await lastUsed()) !== null), 'the use is written (not waited for by the request)')
  const used = Date.parse(await lastUsed())
  assert.ok(used >= before && used <= after, `last used ${new Date(used).toISOString()} is the time of the request`)

  // a later request within the minute writes nothing: the time stays
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement(), auth })).status, 200)
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(Date.parse(await lastUsed()), used)

  assert.equal((await lrs.http('/admin/credentials/lms', { method: 'DELETE' })).status, 204)
  await make()
  assert.equal(await lastUsed(), null, 'a revoked key made again has not been used')
})

test('the admin API needs the admin scope, which `all` does not give', async () => {
  const lrs = await startLrs()
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'everything', secret: 'a-long-enough-secret', scopes: ['all'] } })
  assert.equal(made.status, 201)
  assert.equal((await lrs.http('/admin/credentials', { auth: ['everything', 'a-long-enough-secret'] })).status, 403)
  assert.equal((await lrs.http('/admin/credentials', { auth: null })).status, 401)
  assert.equal((await lrs.http('/metrics', { auth: ['everything', 'a-long-enough-secret'] })).status, 403)
})

test('bad bodies, taken keys and the bootstrap credential are refused with JSON errors', async () => {
  const lrs = await startLrs()
  const bad = [
    { scopes: [] },
    { scopes: ['root'] },
    { scopes: ['all'], key: 'has:colon' },
    { scopes: ['all'], secret: 'short' },
    { scopes: ['all'], extra: 1 }
  ]
  for (const body of bad) {
    const res = await lrs.http('/admin/credentials', { method: 'POST', body })
    assert.equal(res.status, 400, JSON.stringify(body))
    assert.equal(res.json.code, 'LRS_ERR_REQUEST_INVALID')
  }
  assert.equal((await lrs.http('/admin/credentials', { method: 'POST', body: '{"scopes":', headers: { 'Content-Type': 'application/json' } })).status, 400)
  assert.equal((await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'k1', scopes: ['all'] } })).status, 201)
  const taken = await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'k1', scopes: ['all'] } })
  assert.equal(taken.status, 409)
  assert.equal(taken.json.code, 'LRS_ERR_CREDENTIAL_EXISTS')
  for (const [method, body] of [['PUT', { scopes: ['all'] }], ['DELETE', undefined]]) {
    const res = await lrs.http(`/admin/credentials/${ADMIN.user}`, { method, body })
    assert.equal(res.status, 409)
    assert.equal(res.json.code, 'LRS_ERR_CREDENTIAL_MANAGED')
  }
  assert.equal((await lrs.http('/admin/credentials/nobody', { method: 'DELETE' })).status, 404)
  assert.equal((await lrs.http('/admin/credentials/nobody', { method: 'PUT', body: { scopes: ['all'] } })).status, 404)
})

test('a scope change and a revocation take effect on another worker within a second', async () => {
  const a = await startLrs()
  const b = await startLrs({ ...a.storeEnv })
  const made = await a.http('/admin/credentials', { method: 'POST', body: { scopes: ['statements/write'] } })
  const auth = [made.json.key, made.json.secret]
  const post = () => b.client('/statements', { method: 'POST', body: statement(), auth })
  assert.equal((await post()).status, 200) // b has verified (and remembers) this credential

  assert.equal((await a.http(`/admin/credentials/${made.json.key}`, { method: 'PUT', body: { scopes: ['statements/read'] } })).status, 200)
  const changedAfter = await timeUntil(async () => (await post()).status === 403, { within: 2000, every: 0 })
  assert.ok(changedAfter <= 1000, `scope change reached the other worker after ${changedAfter} ms`)

  assert.equal((await a.http(`/admin/credentials/${made.json.key}`, { method: 'DELETE' })).status, 204)
  const revokedAfter = await timeUntil(async () => (await b.client('/statements', { auth })).status === 401, { within: 2000, every: 0 })
  assert.ok(revokedAfter <= 1000, `revocation reached the other worker after ${revokedAfter} ms`)
  assert.equal((await a.client('/statements', { auth })).status, 401)
})

test('a `metrics` credential scrapes /metrics and nothing else; a 403 names the scopes the request needs', async () => {
  const lrs = await startLrs()
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'prometheus', secret: 'a-long-enough-secret', scopes: ['metrics'] } })
  assert.equal(made.status, 201)
  const auth = ['prometheus', 'a-long-enough-secret']
  const scrape = await lrs.http('/metrics', { auth })
  assert.equal(scrape.status, 200)
  assert.match(scrape.text, /lrs_http_requests_total/)
  const admin = await lrs.http('/admin/credentials', { auth })
  assert.equal(admin.status, 403)
  assert.equal(admin.json.message, 'this request needs one of the scopes admin; the credential has metrics')
  const xapi = await lrs.client('/statements', { method: 'POST', body: statement(), auth })
  assert.equal(xapi.status, 403)
  assert.equal(xapi.json.message, 'this request needs one of the scopes all, statements/write; the credential has metrics')
  assert.equal((await lrs.http('/metrics')).status, 200, 'admin still scrapes')
})

test('admin changes are logged with the key of the credential that made them, never a secret', async () => {
  const logLines = []
  const lrs = await startLrs({ LRS_LOG_LEVEL: 'info' }, { logLines })
  const created = await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'lms', secret: 'a-long-enough-secret', scopes: ['statements/write'] } })
  assert.equal(created.status, 201)
  assert.equal((await lrs.http('/admin/credentials/lms', { method: 'DELETE' })).status, 204)
  const audit = logLines.filter((l) => l.audit)
  assert.deepEqual(audit.map((l) => [l.audit, l.key, l.actor]), [['credential-created', 'lms', ADMIN.user], ['credential-revoked', 'lms', ADMIN.user]])
  const requests = logLines.filter((l) => l.msg === 'request' && l.path.startsWith('/admin/credentials'))
  assert.ok(requests.length === 2 && requests.every((l) => l.actor === ADMIN.user), 'request lines name the credential')
  assert.ok(!JSON.stringify(logLines).includes('a-long-enough-secret'))
})
