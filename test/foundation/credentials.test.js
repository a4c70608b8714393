'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { startLrs } = require('../helpers/lrs')
const { hashSecret } = require('../../src/auth/secrets')
const { runLrs } = require('../helpers/cli')

test('a credential added to storage works on its first use, and scopes are enforced', async () => {
  const lrs = await startLrs()
  await lrs.storage.credentials.upsert({ key: 'reader', secretHash: hashSecret('r-secret'), scopes: ['statements/read'] })
  const res = await lrs.client('/statements', { auth: ['reader', 'r-secret'] })
  assert.equal(res.status, 200)
  const write = await lrs.client('/statements', { method: 'POST', auth: ['reader', 'r-secret'], body: { actor: { mbox: 'mailto:a@b.c' }, verb: { id: 'http://x.y/v' }, object: { id: 'http://x.y/o' } } })
  assert.equal(write.status, 403)
  assert.equal(write.json.code, 'LRS_ERR_AUTH_SCOPE')
  assert.equal((await lrs.client('/statements', { auth: ['reader', 'wrong'] })).status, 401)
})

test('lrs credential create stores a credential the LRS accepts (the secret from stdin)', async () => {
  const lrs = await startLrs()
  const made = await runLrs(['credential', 'create', 'lms', '--scopes', 'statements/write,statements/read'], lrs.storeEnv, { input: 'lms-secret-long-enough\n' })
  assert.equal(made.code, 0, made.stderr)
  assert.match(made.stdout, /credential "lms" created/)
  assert.equal((await lrs.client('/statements', { auth: ['lms', 'lms-secret-long-enough'] })).status, 200)
})

test('statements/read/mine reads only the statements stored with that credential (Communication 4.2)', async () => {
  const lrs = await startLrs()
  await lrs.storage.credentials.upsert({ key: 'mine', secretHash: hashSecret('m'), scopes: ['statements/write', 'statements/read/mine'] })
  const mine = ['mine', 'm']
  const s = (n) => ({ actor: { mbox: `mailto:${n}@example.com` }, verb: { id: 'http://example.com/v/read-mine' }, object: { id: 'http://example.com/o' } })
  const [own] = (await lrs.client('/statements', { method: 'POST', auth: mine, body: s('own') })).json
  const [other] = (await lrs.client('/statements', { method: 'POST', body: s('other') })).json
  const list = await lrs.client(`/statements?verb=${encodeURIComponent('http://example.com/v/read-mine')}`, { auth: mine })
  assert.deepEqual(list.json.statements.map((x) => x.id), [own])
  assert.equal((await lrs.client(`/statements?statementId=${other}`, { auth: mine })).status, 404)
  assert.equal((await lrs.client(`/statements?statementId=${own}`, { auth: mine })).status, 200)
  const all = await lrs.client(`/statements?verb=${encodeURIComponent('http://example.com/v/read-mine')}`)
  assert.equal(all.json.statements.length, 2)
})
