'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startLrs, ENGINE } = require('../helpers/lrs')
const { startFerretDB } = require('../../tools/ferretdb')
const { statement } = require('../helpers/statements')
const { freePort } = require('../../tools/free-port')
const { until } = require('../helpers/wait')


test('an unreachable database gives readiness failure and 503s, and service resumes when it comes back', { skip: ENGINE !== 'mongodb' && 'a database server that can be away is the mongodb engine\'s case' }, async (t) => {
  const port = await freePort()
  const { startServer } = require('../../src/server')
  const { loadConfig } = require('../../src/config')
  const lrsDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-outage-lrs-')) // its metrics
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', MONGODB_URI: `mongodb://127.0.0.1:${port}/`, LRS_DATA_DIR: lrsDataDir, LRS_ADMIN_USER: 'admin', LRS_ADMIN_PASSWORD: 'pw', LRS_LOG_LEVEL: 'silent' })
  const lrs = await startServer(config)
  const auth = { Authorization: 'Basic ' + Buffer.from('admin:pw').toString('base64'), 'X-Experience-API-Version': '1.0.3' }
  let db
  t.after(async () => {
    await lrs.close({ graceMs: 0 })
    if (db) await db.stop()
    fs.rmSync(lrsDataDir, { recursive: true, force: true })
  })

  await t.test('the worker starts and serves About without a database', async () => {
    const about = await fetch(lrs.url + '/xapi/about')
    assert.equal(about.status, 200)
  })

  await t.test('readiness fails while the database is unreachable, saying down and nothing internal', async () => {
    const ready = await fetch(lrs.url + '/health/ready')
    assert.equal(ready.status, 503)
    assert.deepEqual(await ready.json(), { status: 'down', reason: 'database unreachable' })
  })

  await t.test('statement requests get 503 with a clear JSON message, not a crash', async () => {
    const res = await fetch(lrs.url + '/xapi/statements', { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(statement()) })
    assert.equal(res.status, 503)
    const body = await res.json()
    assert.equal(body.code, 'LRS_ERR_DATABASE_UNAVAILABLE')
    assert.ok(res.headers.get('retry-after'))
  })

  await t.test('when the database comes up, readiness and writes recover', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-outage-'))
    t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }))
    db = await startFerretDB({ dataDir, port })
    const ready = await until(async () => (await fetch(lrs.url + '/health/ready')).status === 200, { within: 30000, every: 200 })
    assert.ok(ready, 'readiness recovered')
    const res = await fetch(lrs.url + '/xapi/statements', { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify(statement()) })
    assert.equal(res.status, 200)
  })
})

test('an LRS on a working database is ready', async () => {
  const lrs = await startLrs()
  assert.equal((await fetch(lrs.url + '/health/ready')).status, 200)
})

test('if the SQLite writer thread dies, writes get 503 and readiness fails, never a hang or a 500', { skip: ENGINE !== 'sqlite' && 'the sqlite engine' }, async () => {
  const lrs = await startLrs()
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement() })).status, 200)
  await lrs.storage.internals.writerThread.terminate()
  const res = await lrs.client('/statements', { method: 'POST', body: statement() })
  assert.equal(res.status, 503)
  assert.equal(res.json.code, 'LRS_ERR_DATABASE_UNAVAILABLE')
  assert.equal((await fetch(lrs.url + '/health/ready')).status, 503)
  assert.equal((await lrs.client('/statements?limit=1')).status, 200, 'reads still work')
})
