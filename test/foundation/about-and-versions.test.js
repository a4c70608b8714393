'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { startLrs } = require('../helpers/lrs')

test('about, version negotiation and errors', async (t) => {
  const lrs = await startLrs()
  const { client: xapi } = lrs

  await t.test('GET /xapi/about needs no auth and lists 1.0.3 and 2.0.0 (Communication 2.8)', async () => {
    const res = await xapi('/about', { auth: null, version: null })
    assert.equal(res.status, 200)
    assert.deepEqual(res.json.version, ['1.0.3', '2.0.0'])
    assert.equal(res.headers.get('x-experience-api-version'), '1.0.3')
  })

  await t.test('the negotiated version is echoed: 1.0.x -> 1.0.3, 2.0.x -> 2.0.0 (Communication 3.3)', async () => {
    for (const [sent, echoed] of [['1.0', '1.0.3'], ['1.0.1', '1.0.3'], ['1.0.3', '1.0.3'], ['2.0', '2.0.0'], ['2.0.0', '2.0.0']]) {
      const res = await xapi('/statements?limit=1', { version: sent })
      assert.equal(res.status, 200, `version ${sent}`)
      assert.equal(res.headers.get('x-experience-api-version'), echoed)
    }
  })

  await t.test('a missing or unsupported version header is 400 with a JSON message and the default version header (3.3.s3.b5/b6)', async () => {
    await xapi('/statements?limit=1', { version: '1.0.3' })
    for (const sent of [null, '1.1.0', '0.9', 'banana']) {
      const res = await xapi('/statements', { version: sent })
      assert.equal(res.status, 400, `version ${sent}`)
      assert.equal(res.headers.get('x-experience-api-version'), '1.0.3')
      assert.equal(res.json.code, 'LRS_ERR_VERSION_HEADER')
      assert.match(res.json.message, /X-Experience-API-Version/)
      assert.ok(res.json.requestId)
    }
  })

  await t.test('without a valid header, a client is answered in the version it last used (LRS_DEFAULT_XAPI_VERSION=auto)', async () => {
    await xapi('/statements?limit=1', { version: '2.0.0' })
    const res = await xapi('/statements', { version: null })
    assert.equal(res.status, 400)
    assert.equal(res.headers.get('x-experience-api-version'), '2.0.0')
    await xapi('/statements?limit=1', { version: '1.0.3' })
    assert.equal((await xapi('/statements', { version: null })).headers.get('x-experience-api-version'), '1.0.3')
  })

  await t.test('a fixed LRS_DEFAULT_XAPI_VERSION is reported on requests without a valid header', async () => {
    const fixed = await startLrs({ LRS_DEFAULT_XAPI_VERSION: '2.0.0' })
    await fixed.client('/statements?limit=1', { version: '1.0.3' })
    const res = await fixed.client('/statements', { version: null })
    assert.equal(res.headers.get('x-experience-api-version'), '2.0.0')
  })

  await t.test('every xAPI resource but About needs HTTP Basic credentials (Communication 4.0)', async () => {
    for (const path of ['/statements', '/activities/state?activityId=http://x.y/a&agent={"mbox":"mailto:a@b.c"}', '/agents?agent={"mbox":"mailto:a@b.c"}', '/activities?activityId=http://x.y/a']) {
      const none = await xapi(path, { auth: null })
      assert.equal(none.status, 401, path)
      assert.equal(none.json.code, 'LRS_ERR_AUTH_REQUIRED')
      assert.match(none.headers.get('www-authenticate'), /^Basic/)
      const wrong = await xapi(path, { auth: ['admin', 'not-the-secret'] })
      assert.equal(wrong.status, 401, path)
    }
    const ok = await xapi('/statements')
    assert.equal(ok.status, 200)
  })

  await t.test('unknown paths are a JSON 404, never an HTML page', async () => {
    const res = await fetch(lrs.url + '/nowhere')
    assert.equal(res.status, 404)
    assert.equal(res.headers.get('x-experience-api-version'), '1.0.3')
    const body = await res.json()
    assert.equal(body.code, 'LRS_ERR_NOT_FOUND')
    assert.equal(body.stack, undefined)
  })

  await t.test('liveness and readiness answer 200 while the database is up', async () => {
    const live = await fetch(lrs.url + '/health/live')
    assert.equal(live.status, 200)
    assert.ok(live.headers.get('x-experience-api-version'))
    const ready = await fetch(lrs.url + '/health/ready')
    assert.equal(ready.status, 200)
  })

  await t.test('the bootstrap secret is stored hashed, not in clear', async () => {
    const row = (await lrs.storage.credentials.all()).find((c) => c.key === 'admin')
    assert.ok(row)
    assert.match(row.secretHash, /^scrypt\$/)
    assert.ok(!row.secretHash.includes('test-secret'))
    assert.deepEqual(row.scopes, ['all', 'admin', 'stores/admin'])
  })
})
