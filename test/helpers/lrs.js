'use strict'

// Starts a real LRS (src/server.js's startServer) on port 0 against the
// test database server, with a database of its own per test file.

const crypto = require('node:crypto')
const { after } = require('node:test')
const { loadConfig } = require('../../src/config')
const { startServer } = require('../../src/server')

const ADMIN = { user: 'admin', password: 'test-secret' }

async function startLrs (env = {}, { monitorCommands = false, hooks = {} } = {}) {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    MONGODB_URI: process.env.MONGODB_URI,
    MONGODB_DB: 'test_' + crypto.randomBytes(6).toString('hex'),
    LRS_ADMIN_USER: ADMIN.user,
    LRS_ADMIN_PASSWORD: ADMIN.password,
    LRS_LOG_LEVEL: process.env.LRS_TEST_LOG_LEVEL || 'silent',
    ...env
  })
  const lrs = await startServer(config, { monitorCommands, hooks })
  await lrs.storage.ready
  await lrs.credentialsLoaded
  after(async () => {
    await lrs.storage.internals.db.dropDatabase().catch(() => {})
    await lrs.close({ graceMs: 0 })
  })
  return { ...lrs, config, client: xapiClient(lrs.url) }
}

function basic (user, password) {
  return 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64')
}

// fetch wrapper: xapi(path, { method, body, headers, version, auth }) -> { status, headers, text, json }
function xapiClient (baseUrl) {
  return async function xapi (path, { method = 'GET', body, headers = {}, version = '1.0.3', auth = [ADMIN.user, ADMIN.password], raw = false } = {}) {
    const h = { ...headers }
    if (version) h['X-Experience-API-Version'] = version
    if (auth) h.Authorization = basic(...auth)
    let payload = body
    if (body !== undefined && !raw && typeof body !== 'string' && !Buffer.isBuffer(body)) {
      payload = JSON.stringify(body)
      if (!h['Content-Type']) h['Content-Type'] = 'application/json'
    }
    const res = await fetch(baseUrl + '/xapi' + path, { method, headers: h, body: payload })
    const buf = Buffer.from(await res.arrayBuffer())
    const text = buf.toString('utf8')
    let json
    try { json = JSON.parse(text) } catch { json = undefined }
    return { status: res.status, headers: res.headers, text, json, buffer: buf }
  }
}

module.exports = { startLrs, ADMIN, basic }
