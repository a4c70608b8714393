'use strict'

// Starts a real LRS (src/server.js's startServer) on port 0 with a store of
// its own: a fresh SQLite file, or a fresh MongoDB database, as the test
// run's engine says (test/run.js). `lrs.storeEnv` starts another LRS on the
// same store (a second worker): startLrs({ ...lrs.storeEnv }).

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { after } = require('node:test')
const { MongoClient } = require('mongodb')
const { loadConfig } = require('../../src/config')
const { startServer } = require('../../src/server')
const { createLogger } = require('../../src/logger')

const ADMIN = { user: 'admin', password: 'test-secret' }
const removedStores = new Set() // data folders of LRSs that have closed and removed them
const ENGINE = process.env.LRS_TEST_ENGINE || (process.env.MONGODB_URI ? 'mongodb' : 'sqlite')

// A data folder always (SQLite's file; metrics and import checkpoints on
// either engine), and a database of its own on MongoDB. `engine`: another
// than the run's (a SQLite store in the mongodb run names no MongoDB).
function freshStore (engine = ENGINE) {
  const root = process.env.LRS_TEST_DATA_ROOT || os.tmpdir()
  const dataDir = { LRS_DATA_DIR: fs.mkdtempSync(path.join(root, 'lrs-')) }
  if (engine === 'mongodb') return { MONGODB_URI: process.env.MONGODB_URI, MONGODB_DB: 'test_' + crypto.randomBytes(6).toString('hex'), ...dataDir }
  return engine === ENGINE ? dataDir : { MONGODB_URI: '', ...dataDir }
}

// The database goes through the LRS's connection while it is open, or
// through a connection of its own once a test has closed the LRS (the
// driver refuses to work on a closed client). A database server that is
// gone (the outage tests stop theirs) leaves nothing to drop.
async function dropDatabase (lrs, { closed, storeEnv }) {
  if (ENGINE !== 'mongodb') return
  if (!closed) return lrs.storage.internals.db.dropDatabase()
  return dropStoreDatabase(storeEnv)
}

// The MongoDB database of a store from freshStore (none for SQLite).
async function dropStoreDatabase (storeEnv) {
  if (!storeEnv.MONGODB_DB) return
  const client = new MongoClient(storeEnv.MONGODB_URI, { serverSelectionTimeoutMS: 2000 })
  try {
    await client.db(storeEnv.MONGODB_DB).dropDatabase()
  } catch (err) {
    if (err.name !== 'MongoServerSelectionError') throw err
  } finally {
    await client.close()
  }
}

// `logLines`: an array that receives every log line, parsed (for tests of
// what is logged).
async function startLrs (env = {}, { monitorCommands = false, hooks = {}, logLines = null } = {}) {
  const shared = env.LRS_DATA_DIR || env.MONGODB_DB
  const storeEnv = shared ? { ...(ENGINE === 'mongodb' ? { MONGODB_URI: process.env.MONGODB_URI } : {}), ...pick(env, ['LRS_DATA_DIR', 'MONGODB_DB']) } : freshStore()
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LRS_ADMIN_USER: ADMIN.user,
    LRS_ADMIN_PASSWORD: ADMIN.password,
    LRS_LOG_LEVEL: process.env.LRS_TEST_LOG_LEVEL || 'silent',
    // Load shedding answers by timing; on a busy test machine it would turn
    // functional tests' requests into 429s. Tests of shedding set their own.
    LRS_MAX_WAIT_MS: '60000',
    // The test's own fetch keeps idle keep-alive sockets to the LRS, and a
    // graceful close() serves them out the grace period: a short one keeps
    // tests that close an LRS quick. Tests of the shutdown set their own.
    LRS_SHUTDOWN_GRACE_MS: '1000',
    ...storeEnv,
    ...env
  })
  const logger = logLines ? createLogger(config, { write: (line) => { logLines.push(JSON.parse(line)) } }) : undefined
  const lrs = await startServer(config, { monitorCommands, hooks, logger })
  await lrs.storage.ready
  await lrs.credentialsLoaded
  let closed = false
  const close = async (opts) => {
    if (closed) return
    closed = true
    await lrs.close(opts)
  }
  after(async () => {
    if (!shared) await dropDatabase(lrs, { closed, storeEnv })
    await close({ graceMs: 0 })
    // A second LRS on this store may close after the first removed the
    // folder, and its metrics would bring the folder back: whoever closes
    // after the removal removes it again.
    if (!shared) removedStores.add(storeEnv.LRS_DATA_DIR)
    if (removedStores.has(storeEnv.LRS_DATA_DIR)) fs.rmSync(storeEnv.LRS_DATA_DIR, { recursive: true, force: true })
  })
  return { ...lrs, close, config, storeEnv, engine: ENGINE, client: xapiClient(lrs.url), http: httpClient(lrs.url), token: (auth, fields) => accessToken(lrs.url, auth, fields) }
}

function pick (obj, keys) {
  return Object.fromEntries(keys.filter((k) => obj[k] !== undefined).map((k) => [k, obj[k]]))
}

function basic (user, password) {
  return 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64')
}

// POST /oauth/token with a credential's key and secret (Basic), more form
// `fields` beside the grant: its access token; throws unless 200.
async function accessToken (baseUrl, auth = [ADMIN.user, ADMIN.password], fields = {}) {
  const res = await fetch(baseUrl + '/oauth/token', {
    method: 'POST',
    headers: { Authorization: basic(...auth), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...fields })
  })
  const body = await res.json()
  if (res.status !== 200) throw new Error(`POST /oauth/token answered ${res.status}: ${JSON.stringify(body)}`)
  return body.access_token
}

// fetch wrapper for the non-xAPI routes (/admin, /metrics, ...):
// http(path, { method, body, headers, auth }) -> { status, headers, text, json }
function httpClient (baseUrl) {
  const xapi = xapiClient(baseUrl, '')
  return (path, options = {}) => xapi(path, { version: null, ...options })
}

// fetch wrapper: xapi(path, { method, body, headers, version, auth }) -> { status, headers, text, json }
function xapiClient (baseUrl, prefix = '/xapi') {
  return async function xapi (path, { method = 'GET', body, headers = {}, version = '1.0.3', auth = [ADMIN.user, ADMIN.password], raw = false } = {}) {
    const h = { ...headers }
    if (version) h['X-Experience-API-Version'] = version
    if (auth) h.Authorization = basic(...auth)
    let payload = body
    if (body !== undefined && !raw && typeof body !== 'string' && !Buffer.isBuffer(body)) {
      payload = JSON.stringify(body)
      if (!h['Content-Type']) h['Content-Type'] = 'application/json'
    }
    const res = await fetch(baseUrl + prefix + path, { method, headers: h, body: payload })
    const buf = Buffer.from(await res.arrayBuffer())
    const text = buf.toString('utf8')
    let json
    try { json = JSON.parse(text) } catch { json = undefined }
    return { status: res.status, headers: res.headers, text, json, buffer: buf }
  }
}

module.exports = { startLrs, freshStore, dropStoreDatabase, ADMIN, basic, ENGINE }
