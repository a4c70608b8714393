'use strict'

// Request handling that no other file covers: the 1.0.3 alternate request
// syntax, OPTIONS and 405, scopes, HEAD on documents, attachments on a page,
// concurrent POST merges.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, basic, ADMIN } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { hashSecret } = require('../../src/auth/secrets')
const { postWithAttachments, attachmentOf } = require('../helpers/multipart')

const form = (fields) => new URLSearchParams(fields).toString()

test('the 1.0.3 alternate request syntax (Communication 1.3): headers, content and parameters in a form, credentials included; 2.0 refuses it', async () => {
  const lrs = await startLrs()
  const id = crypto.randomUUID()
  const post = (method, fields, headers = {}) => fetch(`${lrs.url}/xapi/statements?method=${method}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: form(fields)
  })
  const put = await post('PUT', { Authorization: basic(ADMIN.user, ADMIN.password), 'X-Experience-API-Version': '1.0.3', statementId: id, content: JSON.stringify(statement()) })
  assert.equal(put.status, 204)
  const get = await post('GET', { Authorization: basic(ADMIN.user, ADMIN.password), 'X-Experience-API-Version': '1.0.3', statementId: id })
  assert.equal(get.status, 200)
  assert.equal((await get.json()).id, id)
  const wrong = await post('GET', { Authorization: basic(ADMIN.user, 'wrong'), 'X-Experience-API-Version': '1.0.3', statementId: id })
  assert.equal(wrong.status, 401)
  const v2 = await post('GET', { Authorization: basic(ADMIN.user, ADMIN.password), 'X-Experience-API-Version': '2.0.0', statementId: id })
  assert.equal(v2.status, 400)
})

test('OPTIONS needs no credentials; a method a resource does not have is 405', async () => {
  const lrs = await startLrs()
  const options = await fetch(`${lrs.url}/xapi/statements`, { method: 'OPTIONS', headers: { Origin: 'https://content.example.com', 'Access-Control-Request-Method': 'PUT' } })
  assert.equal(options.status, 204)
  for (const [method, path] of [['DELETE', '/statements'], ['PATCH', '/activities/state?activityId=x'], ['POST', '/activities'], ['PUT', '/agents']]) {
    const res = await lrs.client(path, { method })
    assert.equal(res.status, 405, `${method} ${path}`)
    assert.equal(res.json.code, 'LRS_ERR_METHOD_NOT_ALLOWED')
  }
})

test('scopes allow what Communication 4.2 says, and nothing else', async () => {
  const lrs = await startLrs()
  const scoped = {}
  for (const scope of ['all/read', 'statements/write', 'statements/read', 'state', 'profile', 'define']) {
    await lrs.storage.credentials.upsert({ key: scope, secretHash: hashSecret('s'), scopes: [scope] })
    scoped[scope] = [scope, 's']
  }
  const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:scopes@example.com' }))
  const activity = encodeURIComponent('http://example.com/scopes')
  const requests = {
    'read statements': { path: '/statements?limit=1' },
    'write statements': { path: '/statements', method: 'POST', body: statement() },
    'read state': { path: `/activities/state?activityId=${activity}&agent=${agent}&stateId=s` },
    'write state': { path: `/activities/state?activityId=${activity}&agent=${agent}&stateId=s`, method: 'PUT', body: { a: 1 } },
    'read activity profile': { path: `/activities/profile?activityId=${activity}&profileId=p` },
    'write activity profile': { path: `/activities/profile?activityId=${activity}&profileId=p`, method: 'PUT', body: { a: 1 } },
    'read agent profile': { path: `/agents/profile?agent=${agent}&profileId=p` },
    'write agent profile': { path: `/agents/profile?agent=${agent}&profileId=p`, method: 'POST', body: { a: 1 } },
    'read activities': { path: `/activities?activityId=${activity}` },
    'read agents': { path: `/agents?agent=${agent}` }
  }
  const allowed = {
    'all/read': ['read statements', 'read state', 'read activity profile', 'read agent profile', 'read activities', 'read agents'],
    'statements/write': ['write statements'],
    'statements/read': ['read statements', 'read activities', 'read agents'],
    state: ['read state', 'write state'],
    profile: ['read activity profile', 'write activity profile', 'read agent profile', 'write agent profile', 'read activities', 'read agents'],
    define: ['read activities', 'read agents']
  }
  for (const [scope, auth] of Object.entries(scoped)) {
    for (const [name, r] of Object.entries(requests)) {
      const res = await lrs.client(r.path, { method: r.method, body: r.body, auth })
      if (allowed[scope].includes(name)) assert.notEqual(res.status, 403, `${scope} may ${name}`)
      else assert.equal(res.status, 403, `${scope} may not ${name}`)
    }
  }
})

test('HEAD on a document answers like GET without the body (Communication 1.1)', async () => {
  const lrs = await startLrs()
  const url = `/activities/state?activityId=${encodeURIComponent('http://example.com/head')}&agent=${encodeURIComponent(JSON.stringify({ mbox: 'mailto:head@example.com' }))}&stateId=s`
  assert.equal((await lrs.client(url, { method: 'PUT', body: { a: 1 } })).status, 204)
  const get = await lrs.client(url)
  const head = await lrs.client(url, { method: 'HEAD' })
  assert.equal(head.status, 200)
  assert.equal(head.text, '')
  assert.equal(head.headers.get('etag'), get.headers.get('etag'))
})

test('attachments=true on a page returns the statements and every attachment they declare', async () => {
  const lrs = await startLrs()
  const verb = `http://example.com/verbs/${crypto.randomUUID()}`
  const contents = [Buffer.from('first file'), Buffer.from('second file')]
  for (const content of contents) {
    const res = await postWithAttachments(lrs.client, [statement({ verb: { id: verb }, attachments: [attachmentOf(content)] })], [{ content }])
    assert.equal(res.status, 200, res.text)
  }
  const page = await lrs.client(`/statements?verb=${encodeURIComponent(verb)}&attachments=true`)
  assert.match(page.headers.get('content-type'), /^multipart\/mixed; boundary=/)
  for (const content of contents) assert.ok(page.buffer.includes(content))
})

test('concurrent POST merges into one document keep every key (Communication 2.2.s7)', async () => {
  const lrs = await startLrs()
  const url = `/activities/state?activityId=${encodeURIComponent('http://example.com/merge')}&agent=${encodeURIComponent(JSON.stringify({ mbox: 'mailto:merge@example.com' }))}&stateId=s`
  const results = await Promise.all(Array.from({ length: 12 }, (_, i) => lrs.client(url, { method: 'POST', body: { [`k${i}`]: i } })))
  assert.deepEqual([...new Set(results.map((r) => r.status))], [204])
  const doc = (await lrs.client(url)).json
  assert.deepEqual(Object.keys(doc).sort(), Array.from({ length: 12 }, (_, i) => `k${i}`).sort())
})
