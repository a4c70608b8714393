'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')

const sha1 = (buf) => crypto.createHash('sha1').update(buf).digest('hex')

test('document resources (Communication 2.2, 3.1)', async (t) => {
  const lrs = await startLrs()
  const xapi = lrs.client
  const agent = encodeURIComponent(JSON.stringify({ mbox: `mailto:${crypto.randomUUID()}@example.com` }))
  const activity = encodeURIComponent(`http://example.com/a/${crypto.randomUUID()}`)
  const stateUrl = (id, extra = '') => `/activities/state?activityId=${activity}&agent=${agent}&stateId=${id}${extra}`
  const profileUrl = (id) => `/activities/profile?activityId=${activity}&profileId=${id}`
  const agentProfileUrl = (id) => `/agents/profile?agent=${agent}&profileId=${id}`

  await t.test('PUT then GET returns the bytes, Content-Type, a strong SHA-1 ETag and Last-Modified', async () => {
    const body = Buffer.from([1, 2, 3, 0, 255])
    assert.equal((await xapi(stateUrl('bin'), { method: 'PUT', body, headers: { 'Content-Type': 'application/octet-stream' } })).status, 204)
    const got = await xapi(stateUrl('bin'))
    assert.equal(got.status, 200)
    assert.deepEqual(got.buffer, body)
    assert.equal(got.headers.get('content-type'), 'application/octet-stream')
    assert.equal(got.headers.get('etag'), `"${sha1(body)}"`)
    assert.ok(got.headers.get('last-modified'))
  })

  await t.test('PUT and POST answer with the ETag of what they stored, and If-Match with it needs no read back', async () => {
    const url = profileUrl(`etag-${crypto.randomUUID()}`)
    const put = await xapi(url, { method: 'PUT', body: { a: 1 }, headers: { 'If-None-Match': '*' } })
    assert.equal(put.status, 204)
    assert.equal(put.headers.get('etag'), `"${sha1(JSON.stringify({ a: 1 }))}"`)
    const merged = await xapi(url, { method: 'POST', body: { b: 2 }, headers: { 'If-Match': put.headers.get('etag') } })
    assert.equal(merged.status, 204)
    assert.equal(merged.headers.get('etag'), `"${sha1(JSON.stringify({ a: 1, b: 2 }))}"`)
    assert.equal(merged.headers.get('etag'), (await xapi(url)).headers.get('etag'))
    const created = await xapi(stateUrl(`post-${crypto.randomUUID()}`), { method: 'POST', body: { c: 3 } })
    assert.equal(created.headers.get('etag'), `"${sha1(JSON.stringify({ c: 3 }))}"`)
  })

  await t.test('GET with If-None-Match naming the current ETag is 304 without a body; another ETag gets the document', async () => {
    const url = stateUrl(`inm-${crypto.randomUUID()}`)
    const etag = (await xapi(url, { method: 'PUT', body: { v: 1 } })).headers.get('etag')
    const same = await xapi(url, { headers: { 'If-None-Match': etag } })
    assert.equal(same.status, 304)
    assert.equal(same.headers.get('etag'), etag)
    assert.equal(same.buffer.length, 0)
    const other = await xapi(url, { headers: { 'If-None-Match': '"0000"' } })
    assert.equal(other.status, 200)
    assert.deepEqual(other.json, { v: 1 })
  })

  await t.test('If-Match with the current ETag updates; with another ETag it is 412 and nothing changes', async () => {
    const url = stateUrl('cas')
    await xapi(url, { method: 'PUT', body: { v: 1 } })
    const etag = (await xapi(url)).headers.get('etag')
    assert.equal((await xapi(url, { method: 'PUT', body: { v: 2 }, headers: { 'If-Match': '"1234"' } })).status, 412)
    assert.deepEqual((await xapi(url)).json, { v: 1 })
    assert.equal((await xapi(url, { method: 'PUT', body: { v: 2 }, headers: { 'If-Match': etag } })).status, 204)
    assert.deepEqual((await xapi(url)).json, { v: 2 })
    assert.equal((await xapi(url, { method: 'POST', body: { w: 1 }, headers: { 'If-Match': '"1234"' } })).status, 412)
    assert.equal((await xapi(url, { method: 'DELETE', headers: { 'If-Match': '"1234"' } })).status, 412)
    assert.equal((await xapi(url)).status, 200)
  })

  await t.test('If-None-Match: * on an existing document is 412', async () => {
    const url = profileUrl('inm')
    assert.equal((await xapi(url, { method: 'PUT', body: { a: 1 }, headers: { 'If-None-Match': '*' } })).status, 204)
    assert.equal((await xapi(url, { method: 'PUT', body: { a: 2 }, headers: { 'If-None-Match': '*' } })).status, 412)
  })

  await t.test('profile PUT without precondition headers: 409 on an existing document, and nothing changes', async () => {
    const url = agentProfileUrl('p409')
    await xapi(url, { method: 'PUT', body: { a: 1 }, headers: { 'If-None-Match': '*' } })
    for (const version of ['1.0.3', '2.0.0']) {
      const res = await xapi(url, { method: 'PUT', body: { a: 2 }, version })
      assert.equal(res.status, 409, version)
      assert.ok(res.json.message)
    }
    assert.deepEqual((await xapi(url)).json, { a: 1 })
  })

  await t.test('State PUT without precondition: 1.0.3 overwrites (State is exempt), 2.0 answers 409 as its conformance suite expects', async () => {
    const url = stateUrl('nohdr')
    assert.equal((await xapi(url, { method: 'PUT', body: { a: 1 } })).status, 204)
    assert.equal((await xapi(url, { method: 'PUT', body: { a: 2 } })).status, 204)
    assert.equal((await xapi(url, { method: 'PUT', body: { a: 3 }, version: '2.0.0' })).status, 409)
    assert.deepEqual((await xapi(url)).json, { a: 2 })
  })

  await t.test('POST merges top-level JSON keys; non-JSON on either side is 400 and changes nothing (2.2.s7, s8)', async () => {
    const url = stateUrl('merge')
    assert.equal((await xapi(url, { method: 'POST', body: { a: 1, b: { x: 1 } } })).status, 204)
    assert.equal((await xapi(url, { method: 'POST', body: { b: { y: 2 }, c: 3 } })).status, 204)
    assert.deepEqual((await xapi(url)).json, { a: 1, b: { y: 2 }, c: 3 })
    assert.equal((await xapi(url, { method: 'POST', body: 'abc', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })).status, 400)
    const bin = stateUrl('binmerge')
    await xapi(bin, { method: 'PUT', body: 'raw text', headers: { 'Content-Type': 'text/plain' } })
    assert.equal((await xapi(bin, { method: 'POST', body: { a: 1 } })).status, 400)
    assert.equal((await xapi(bin)).text, 'raw text')
  })

  await t.test('GET without stateId lists ids, filtered by since; DELETE without stateId removes them all', async () => {
    const agent2 = encodeURIComponent(JSON.stringify({ account: { homePage: 'http://example.com', name: crypto.randomUUID() } }))
    const base = `/activities/state?activityId=${activity}&agent=${agent2}`
    await xapi(`${base}&stateId=one`, { method: 'PUT', body: { n: 1 } })
    const between = Date.now()
    while (Date.now() === between); // the next document's time is later than `between` (since is exclusive)
    await xapi(`${base}&stateId=two`, { method: 'PUT', body: { n: 2 } })
    assert.deepEqual((await xapi(base)).json.sort(), ['one', 'two'])
    assert.deepEqual((await xapi(`${base}&since=${encodeURIComponent(new Date(between).toISOString())}`)).json, ['two'])
    assert.equal((await xapi(base, { method: 'DELETE' })).status, 204)
    assert.deepEqual((await xapi(base)).json, [])
  })

  await t.test('bad agent or registration parameters are 400', async () => {
    assert.equal((await xapi(`/activities/state?activityId=${activity}&agent=true&stateId=x`)).status, 400)
    assert.equal((await xapi(`/activities/state?activityId=${activity}&agent=${encodeURIComponent('{"name":"no ifi"}')}&stateId=x`)).status, 400)
    assert.equal((await xapi(stateUrl('x', '&registration=nope'))).status, 400)
    assert.equal((await xapi(`/activities/state?agent=${agent}&stateId=x`)).status, 400)
  })

  await t.test('documents larger than the body limit get 413', async () => {
    const small = await startLrs({ LRS_BODY_LIMIT: '2048' })
    const res = await small.client(stateUrl('big'), { method: 'PUT', body: Buffer.alloc(4096, 1), headers: { 'Content-Type': 'application/octet-stream' } })
    assert.equal(res.status, 413)
    assert.equal(res.json.code, 'LRS_ERR_PAYLOAD_TOO_LARGE')
  })

  await t.test('many clients updating one document with If-Match lose no update and get only 204 or 412', async () => {
    const url = agentProfileUrl('counter')
    await xapi(url, { method: 'PUT', body: { n: 0 }, headers: { 'If-None-Match': '*' } })
    let applied = 0
    const worker = async () => {
      for (let i = 0; i < 8; i++) {
        const cur = await xapi(url)
        const res = await xapi(url, { method: 'PUT', body: { n: cur.json.n + 1 }, headers: { 'If-Match': cur.headers.get('etag') } })
        assert.ok(res.status === 204 || res.status === 412, `status ${res.status}`)
        if (res.status === 204) applied++
      }
    }
    await Promise.all(Array.from({ length: 8 }, worker))
    assert.ok(applied > 0)
    assert.equal((await xapi(url)).json.n, applied)
  })

  await t.test('GET /activities returns the Activity with definitions merged from statements, or just its id', async () => {
    const id = `http://example.com/a/${crypto.randomUUID()}`
    const actor = { mbox: 'mailto:a@example.com' }
    const verb = { id: 'http://adlnet.gov/expapi/verbs/experienced' }
    await xapi('/statements', { method: 'POST', body: { actor, verb, object: { id, definition: { name: { 'en-US': 'Hello' } } } } })
    await xapi('/statements', { method: 'POST', body: { actor, verb, object: { id, definition: { name: { 'fr-FR': 'Bonjour' } } } } })
    const res = await xapi(`/activities?activityId=${encodeURIComponent(id)}`)
    assert.deepEqual(res.json, { objectType: 'Activity', id, definition: { name: { 'en-US': 'Hello', 'fr-FR': 'Bonjour' } } })
    const unknown = await xapi(`/activities?activityId=${encodeURIComponent('http://example.com/never')}`, { version: '2.0.0' })
    assert.deepEqual(unknown.json, { objectType: 'Activity', id: 'http://example.com/never' })
  })

  await t.test('GET /agents returns a Person object', async () => {
    const res = await xapi(`/agents?agent=${encodeURIComponent(JSON.stringify({ name: 'Ann', mbox: 'mailto:ann@example.com' }))}`)
    assert.deepEqual(res.json, { objectType: 'Person', name: ['Ann'], mbox: ['mailto:ann@example.com'] })
  })
})
