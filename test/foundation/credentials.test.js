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

test('a secret checked while its key changes is judged by the key as it now stands: the new secret is not refused for good, the old one not let in', async (t) => {
  const lrs = await startLrs()
  const { createCredentialStore } = require('../../src/auth/credential-store')
  const silent = { info () {}, warn () {}, debug () {}, error () {}, fatal () {} }
  const rotate = async (secret) => {
    await lrs.storage.credentials.upsert({ key: 'rotating', secretHash: hashSecret(secret), scopes: ['all'] })
    await new Promise((resolve) => setTimeout(resolve, 300)) // past the store's poll (50 ms)
  }
  let during = null // what happens while the next secret is being checked
  const store = createCredentialStore({
    config: { ...lrs.config, adminUser: null, credentialPollMs: 50 },
    storage: lrs.storage,
    logger: silent,
    hooks: { secretChecked: async () => { const f = during; during = null; if (f) await f() } }
  })
  await store.start()
  t.after(() => store.stop())
  const header = (secret) => 'Basic ' + Buffer.from('rotating:' + secret).toString('base64')
  await rotate('first-secret')
  assert.equal((await store.authenticate(header('first-secret'), '127.0.0.1')).key, 'rotating')

  // the new secret arrives before this worker knows it; the key changes while it is checked
  during = () => rotate('second-secret')
  const second = await store.authenticate(header('second-secret'), '127.0.0.1')
  assert.equal(second && second.key, 'rotating', 'the new secret is accepted, checked again against the key as it now stands')
  assert.equal((await store.authenticate(header('second-secret'), '127.0.0.2')).key, 'rotating')

  // the old secret is checked while the key changes away from it
  during = () => rotate('third-secret')
  assert.equal(await store.authenticate(header('second-secret-x'), '127.0.0.3'), null)
  during = () => rotate('fourth-secret')
  assert.equal(await store.authenticate(header('third-secret'), '127.0.0.4'), null, 'a secret replaced while it was checked is not let in')
  assert.equal(await store.authenticate(header('third-secret'), '127.0.0.4'), null)
  assert.equal((await store.authenticate(header('fourth-secret'), '127.0.0.5')).key, 'rotating')
})
