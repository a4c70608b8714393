'use strict'

// Issue 56: the secrets the LRS keeps in its database — a store's upstream
// credentials (forwardUrls), its own token-signing keys and cursor key —
// sealed under LRS_SECRETS_KEY like forwarders' secrets, and `lrs secrets
// reseal`, which seals what was kept in plain text and moves everything
// to a new key (a rotation), while what was made before goes on working.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { runLrs } = require('../helpers/cli')
const { upstreamLrs } = require('../helpers/upstream-lrs')
const { statement } = require('../helpers/statements')
const { storeWithAdmin, postStatements: post } = require('../helpers/stores')
const { until } = require('../helpers/wait')
const { loadConfig } = require('../../src/config')
const { createToolLogger } = require('../../src/logger')
const { openStorage } = require('../../src/storage')

const OLD = crypto.randomBytes(32).toString('base64')
const NEW = crypto.randomBytes(32).toString('base64')
const keyId = (key) => crypto.createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 8)

// What the database holds, read as a copy of it would be: the stores'
// upstream URLs and the LRS's own keys, as stored.
async function atRest (storeEnv) {
  const config = loadConfig({ ...process.env, MONGODB_URI: '', ...storeEnv, LRS_LOG_LEVEL: 'silent' })
  const storage = openStorage(config, createToolLogger({ ...config, logLevel: 'error' }))
  try {
    await storage.ready
    return {
      urls: (await storage.stores.all()).flatMap((s) => s.forwardUrls || []),
      keys: await storage.settings.named(['token-signing-key:', 'more-cursor-key'])
    }
  } finally {
    await storage.close()
  }
}

test('lrs secrets reseal seals the upstream credentials and keys kept in plain text, then moves them to a new key; forwarding and tokens go on working', async (t) => {
  const up = await upstreamLrs(undefined, { user: 'acme-user', password: 'acme-secret' })
  t.after(() => up.server.close())
  // no key at first: kept as they are (what an LRS before this one did)
  const plain = await startLrs()
  const acmeAdmin = await storeWithAdmin(plain, 'acme')
  assert.equal((await plain.http('/admin/stores/acme', { method: 'PUT', body: { forwardUrls: [up.url] } })).status, 200)
  const token = await plain.token()
  // a page with more: the cursor key is made
  await post(plain.client, [statement(), statement()])
  const page = await plain.client('/statements?limit=1')
  assert.ok(page.json.more)
  let rest = await atRest(plain.storeEnv)
  assert.ok(rest.urls.some((u) => u.includes('acme-secret')), 'without a key the password is kept as given')
  assert.ok(rest.keys.some((k) => k.name.startsWith('token-signing-key:') && k.value.includes('"d"')), 'and the signing key')
  assert.ok(rest.keys.some((k) => k.name === 'more-cursor-key' && !k.value.startsWith('sealed:')), 'and the cursor key')
  await plain.close()

  const noKey = await runLrs(['secrets', 'reseal'], plain.storeEnv)
  assert.equal(noKey.code, 1)
  assert.match(noKey.stderr, /LRS_SECRETS_KEY is not set/)

  const first = await runLrs(['secrets', 'reseal'], plain.storeEnv, { env: { LRS_SECRETS_KEY: OLD } })
  assert.equal(first.code, 0, first.stderr)
  assert.match(first.stdout, /sealed again under the current LRS_SECRETS_KEY: [1-9]\d* of the LRS's own keys, 1 store upstream URLs, 0 forwarders/)
  rest = await atRest(plain.storeEnv)
  assert.ok(rest.urls.length === 1 && !rest.urls[0].includes('acme-secret') && !rest.urls[0].includes('acme-user'), rest.urls[0])
  assert.ok(rest.keys.length >= 2 && rest.keys.every((k) => k.value.startsWith(`sealed:v1:${keyId(OLD)}:`)), JSON.stringify(rest.keys.map((k) => [k.name, k.value.slice(0, 30)])))

  // rotation: the new key, the old one beside it while resealing
  const again = await runLrs(['secrets', 'reseal'], plain.storeEnv, { env: { LRS_SECRETS_KEY: NEW, LRS_SECRETS_OLD_KEYS: OLD } })
  assert.equal(again.code, 0, again.stderr)
  assert.match(again.stdout, /: [1-9]\d* of the LRS's own keys, 1 store upstream URLs/)
  rest = await atRest(plain.storeEnv)
  assert.ok(rest.urls[0].includes(`#sealed:v1:${keyId(NEW)}:`))
  assert.ok(rest.keys.every((k) => k.value.startsWith(`sealed:v1:${keyId(NEW)}:`)))
  const nothing = await runLrs(['secrets', 'reseal', '--dry-run'], plain.storeEnv, { env: { LRS_SECRETS_KEY: NEW } })
  assert.match(nothing.stdout, /would seal again under the current LRS_SECRETS_KEY: 0 of the LRS's own keys, 0 store upstream URLs, 0 forwarders/)

  // the new key alone: the store's upstream gets its statements with its
  // credentials, a token signed before the reseal is still good, a new one too
  const lrs = await startLrs({ ...plain.storeEnv, LRS_SECRETS_KEY: NEW })
  const acme = await lrs.http('/admin/stores/acme')
  assert.equal(acme.status, 200)
  assert.ok(!acme.text.includes('sealed') && !acme.text.includes('acme-secret'), 'shown without credentials, sealed or not')
  const ids = await post((path, options = {}) => lrs.client(path, { auth: acmeAdmin.auth, ...options }), [statement()])
  assert.ok(await until(() => ids.every((id) => up.received.some((s) => s.id === id))), 'delivered with the unsealed credentials')
  const before = await lrs.http('/admin/credentials', { auth: null, headers: { Authorization: `Bearer ${token}` } })
  assert.equal(before.status, 200, 'a token signed before the reseal verifies')
  const next = await lrs.client(page.json.more.replace(/^\/xapi/, ''))
  assert.equal(next.status, 200, 'a more link given before the reseal is followed')
  assert.equal(next.json.statements.length, 1)
  await lrs.token()
  // set anew with a key: sealed at once
  assert.equal((await lrs.http('/admin/stores/acme', { method: 'PUT', body: { forwardUrls: [up.url] } })).status, 200)
  await lrs.close()
  rest = await atRest(plain.storeEnv)
  assert.ok(rest.urls.length === 1 && rest.urls[0].includes(`#sealed:v1:${keyId(NEW)}:`) && !rest.urls[0].includes('acme-secret'))
})
