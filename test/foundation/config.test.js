'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { loadConfig } = require('../../src/config')

test('configuration has safe defaults', () => {
  const c = loadConfig({})
  assert.equal(c.port, 8080)
  assert.equal(c.storage, 'sqlite')
  assert.equal(c.defaultXapiVersion, 'auto')
  assert.ok(Object.isFrozen(c))
})

test('invalid settings stop the start with a message naming the variable', () => {
  assert.throws(() => loadConfig({ PORT: 'eighty' }), /PORT/)
  assert.throws(() => loadConfig({ LRS_DEFAULT_XAPI_VERSION: '1.1' }), /LRS_DEFAULT_XAPI_VERSION/)
  assert.throws(() => loadConfig({ LRS_ADMIN_USER: 'root' }), /LRS_ADMIN_PASSWORD/)
  assert.throws(() => loadConfig({ LRS_WRITE_CONCERN: 'lots' }), /LRS_WRITE_CONCERN/)
  assert.throws(() => loadConfig({ LRS_FORWARD_URLS: 'not a url' }), /LRS_FORWARD_URLS/)
})

test('MONGODB_URI set means the mongodb storage engine', () => {
  const c = loadConfig({ MONGODB_URI: 'mongodb://db.example:27017/?replicaSet=rs0' })
  assert.equal(c.storage, 'mongodb')
  assert.equal(c.mongodbUri, 'mongodb://db.example:27017/?replicaSet=rs0')
})

test('the configuration table of docs/configuration.md is the one src/config.js makes (npm run config:docs)', () => {
  const fs = require('node:fs')
  const path = require('node:path')
  const { docsWithSettings } = require('../../src/config')
  const page = fs.readFileSync(path.join(__dirname, '../../docs/configuration.md'), 'utf8')
  assert.equal(page, docsWithSettings(page))
})

test('limits and lists are validated too', () => {
  assert.throws(() => loadConfig({ LRS_CURSOR_KEY: 'short' }), /LRS_CURSOR_KEY/)
  assert.throws(() => loadConfig({ LRS_MAX_STATEMENT_BYTES: String(16 * 1024 * 1024) }), /LRS_MAX_STATEMENT_BYTES/)
  assert.deepEqual(loadConfig({ LRS_CORS_ORIGINS: 'https://a.example, https://b.example' }).corsOrigins, ['https://a.example', 'https://b.example'])
  assert.equal(loadConfig({ LRS_TRUST_PROXY: '1' }).trustProxy, 1)
  assert.throws(() => loadConfig({ LRS_SHUTDOWN_GRACE_MS: '10000', LRS_SHUTDOWN_TIMEOUT_MS: '10000' }), /LRS_SHUTDOWN_GRACE_MS must be below LRS_SHUTDOWN_TIMEOUT_MS/)
})

test('token settings: issuers are https (http only on this host) and need an audience; keys rotate no faster than tokens expire', () => {
  assert.throws(() => loadConfig({ LRS_OIDC_ISSUERS: 'https://idp.example.org' }), /LRS_OIDC_AUDIENCE is required/)
  assert.throws(() => loadConfig({ LRS_OIDC_ISSUERS: 'http://idp.example.org', LRS_OIDC_AUDIENCE: 'lrs' }), /LRS_OIDC_ISSUERS has an issuer that is not an https URL/)
  assert.throws(() => loadConfig({ LRS_OIDC_ISSUERS: 'https://idp.example.org/?x=1', LRS_OIDC_AUDIENCE: 'lrs' }), /LRS_OIDC_ISSUERS/)
  assert.throws(() => loadConfig({ LRS_OIDC_ISSUERS: 'https://user:pw@idp.example.org', LRS_OIDC_AUDIENCE: 'lrs' }), /LRS_OIDC_ISSUERS/)
  const c = loadConfig({ LRS_OIDC_ISSUERS: 'https://idp.example.org/realms/a, http://127.0.0.1:8443', LRS_OIDC_AUDIENCE: 'lrs,https://lrs.example.org' })
  assert.deepEqual(c.oidcIssuers, ['https://idp.example.org/realms/a', 'http://127.0.0.1:8443'])
  assert.deepEqual(c.oidcAudience, ['lrs', 'https://lrs.example.org'])
  assert.throws(() => loadConfig({ LRS_TOKEN_TTL_S: '7200', LRS_TOKEN_KEY_ROTATION_S: '3600' }), /LRS_TOKEN_KEY_ROTATION_S must be at least LRS_TOKEN_TTL_S/)
  assert.throws(() => loadConfig({ LRS_BASIC_AUTH: 'no' }), /LRS_BASIC_AUTH/)
  assert.throws(() => loadConfig({ LRS_OIDC_SCOPE_PREFIX: 'lrs :' }), /LRS_OIDC_SCOPE_PREFIX/)
})

test('a bad setting stops `node src/server.js` with one line naming it, no stack trace, and an exit code PM2 does not restart', () => {
  const { spawnSync } = require('node:child_process')
  const path = require('node:path')
  const run = spawnSync(process.execPath, [path.join(__dirname, '../../src/server.js')], { env: { ...process.env, LRS_INSTANCES: 'many', MONGODB_URI: '' }, encoding: 'utf8', timeout: 20000 })
  assert.equal(run.status, 78)
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
  assert.match(run.stderr, /^failed to start: invalid configuration: LRS_INSTANCES must match pattern/)
})
