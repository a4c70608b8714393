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

test('a bad setting stops `node src/server.js` with one line naming it, no stack trace, and an exit code PM2 does not restart', () => {
  const { spawnSync } = require('node:child_process')
  const path = require('node:path')
  const run = spawnSync(process.execPath, [path.join(__dirname, '../../src/server.js')], { env: { ...process.env, LRS_INSTANCES: 'many', MONGODB_URI: '' }, encoding: 'utf8', timeout: 20000 })
  assert.equal(run.status, 78)
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
  assert.match(run.stderr, /^failed to start: invalid configuration: LRS_INSTANCES must match pattern/)
})
