'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { startLrs } = require('../helpers/lrs')
const { hashSecret } = require('../../src/auth/secrets')

test('a credential added to the database is picked up when first used, and scopes are enforced', async () => {
  const lrs = await startLrs()
  await lrs.storage.internals.db.collection('credentials').insertOne({ _id: 'reader', secretHash: hashSecret('r-secret'), scopes: ['statements/read'] })
  // The first request with an unknown key triggers a refresh; the next one is known.
  await lrs.client('/statements', { auth: ['reader', 'r-secret'] })
  let res
  for (let i = 0; i < 40; i++) {
    res = await lrs.client('/statements', { auth: ['reader', 'r-secret'] })
    if (res.status === 200) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.equal(res.status, 200)
  const write = await lrs.client('/statements', { method: 'POST', auth: ['reader', 'r-secret'], body: { actor: { mbox: 'mailto:a@b.c' }, verb: { id: 'http://x.y/v' }, object: { id: 'http://x.y/o' } } })
  assert.equal(write.status, 403)
  assert.equal(write.json.code, 'LRS_ERR_AUTH_SCOPE')
  assert.equal((await lrs.client('/statements', { auth: ['reader', 'wrong'] })).status, 401)
})

test('npm run credential stores a credential the LRS accepts', async () => {
  const { execFileSync } = require('node:child_process')
  const path = require('node:path')
  const lrs = await startLrs()
  const out = execFileSync(process.execPath, [path.join(__dirname, '../../src/auth/credential-cli.js'), 'lms', 'lms-secret', 'statements/write,statements/read'], {
    env: { ...process.env, MONGODB_URI: process.env.MONGODB_URI, MONGODB_DB: lrs.config.mongodbDb },
    encoding: 'utf8'
  })
  assert.match(out, /credential "lms" stored/)
  let status
  for (let i = 0; i < 40 && status !== 200; i++) {
    status = (await lrs.client('/statements', { auth: ['lms', 'lms-secret'] })).status
    if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.equal(status, 200)
})

test('statements/read/mine reads only the statements stored with that credential (Communication 4.2)', async () => {
  const lrs = await startLrs()
  await lrs.storage.internals.db.collection('credentials').insertOne({ _id: 'mine', secretHash: hashSecret('m'), scopes: ['statements/write', 'statements/read/mine'] })
  const mine = ['mine', 'm']
  const s = (n) => ({ actor: { mbox: `mailto:${n}@example.com` }, verb: { id: 'http://example.com/v/read-mine' }, object: { id: 'http://example.com/o' } })
  let own
  for (let i = 0; i < 40 && !own; i++) {
    const res = await lrs.client('/statements', { method: 'POST', auth: mine, body: s('own') })
    if (res.status === 200) own = res.json[0]
    else await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.ok(own)
  const [other] = (await lrs.client('/statements', { method: 'POST', body: s('other') })).json
  const list = await lrs.client(`/statements?verb=${encodeURIComponent('http://example.com/v/read-mine')}`, { auth: mine })
  assert.deepEqual(list.json.statements.map((x) => x.id), [own])
  assert.equal((await lrs.client(`/statements?statementId=${other}`, { auth: mine })).status, 404)
  assert.equal((await lrs.client(`/statements?statementId=${own}`, { auth: mine })).status, 200)
  const all = await lrs.client(`/statements?verb=${encodeURIComponent('http://example.com/v/read-mine')}`)
  assert.equal(all.json.statements.length, 2)
})
