'use strict'

// Issue 10 items 8–11: query timeouts, signature algorithms, CORS with
// credentials, health answers and the version memory.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { startLrs, basic, ADMIN } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { postWithAttachments, attachmentOf } = require('../helpers/multipart')

const SIGNATURE = 'http://adlnet.gov/expapi/attachments/signature'

test('a statement query that runs out of time is 504 with a message saying how to narrow it', async () => {
  const lrs = await startLrs({ LRS_QUERY_TIMEOUT_MS: '100' }, { hooks: { beforeQuery: () => new Promise((resolve) => setTimeout(resolve, 150)) } })
  const res = await lrs.client('/statements?verb=http%3A%2F%2Fexample.com%2Fv')
  assert.equal(res.status, 504)
  assert.equal(res.json.code, 'LRS_ERR_QUERY_TIMEOUT')
  assert.match(res.json.message, /narrow/)
  assert.ok(res.headers.get('x-experience-api-consistent-through'))
})

test('signatures: only RS256, RS384 and RS512; any other alg, however named, is 400 (Data 2.6)', async () => {
  const lrs = await startLrs()
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url')
  for (const header of [{ alg: 'constructor' }, { alg: '__proto__' }, { alg: 'toString' }, { alg: 'HS256' }, { alg: 'none' }, {}, [1], 'RS256']) {
    const s = statement()
    const jws = Buffer.from(`${b64(header)}.${b64(s)}.c2lnbmF0dXJl`)
    const signed = { ...s, attachments: [attachmentOf(jws, { usageType: SIGNATURE })] }
    const res = await postWithAttachments(lrs.client, [signed], [{ content: jws }])
    assert.equal(res.status, 400, `${JSON.stringify(header)}: ${res.text}`)
    assert.equal(res.json.code, 'LRS_ERR_SIGNATURE_INVALID')
  }
})

test('signatures: an x5c that is not an array of certificates is 400, not skipped; so is a JWS spelled other than canonical base64url', async () => {
  const lrs = await startLrs()
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const post = (s, jws) => postWithAttachments(lrs.client, [{ ...s, attachments: [attachmentOf(jws, { usageType: SIGNATURE })] }], [{ content: jws }])
  for (const x5c of ['MIIB', {}, [], null, [42]]) {
    const s = statement()
    const res = await post(s, Buffer.from(`${b64({ alg: 'RS256', x5c })}.${b64(s)}.c2lnbmF0dXJl`))
    assert.equal(res.status, 400, `x5c ${JSON.stringify(x5c)}: ${res.text}`)
    assert.equal(res.json.code, 'LRS_ERR_SIGNATURE_INVALID')
  }
  // each decodes to the bytes of 'c2lnbmF0dXJlcw': its last character's unused bits set, padded, a stray character
  for (const signature of ['c2lnbmF0dXJlcx', 'c2lnbmF0dXJlcw==', 'c2ln*bmF0dXJlcw']) {
    const s = statement()
    const res = await post(s, Buffer.from(`${b64({ alg: 'RS256' })}.${b64(s)}.${signature}`))
    assert.equal(res.status, 400, `${signature}: ${res.text}`)
  }
  const s = statement()
  assert.equal((await post(s, Buffer.from(`${b64({ alg: 'RS256' })}.${b64(s)}.c2lnbmF0dXJlcw`))).status, 200, 'the canonical spelling without x5c is stored (nothing to verify it against)')
})

test('CORS for credentialed browser requests: the actual response agrees with the preflight', async () => {
  const lrs = await startLrs()
  const origin = 'https://content.example.com'
  const preflight = await fetch(lrs.url + '/xapi/statements', {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type,x-experience-api-version' }
  })
  assert.equal(preflight.status, 204)
  assert.equal(preflight.headers.get('access-control-allow-origin'), origin)
  assert.equal(preflight.headers.get('access-control-allow-credentials'), 'true')
  assert.match(preflight.headers.get('access-control-allow-headers'), /Authorization/)
  for (const auth of [[ADMIN.user, ADMIN.password], [ADMIN.user, 'wrong']]) {
    const res = await lrs.client('/statements?limit=1', { headers: { Origin: origin }, auth })
    assert.equal(res.headers.get('access-control-allow-origin'), origin, `status ${res.status}`)
    assert.equal(res.headers.get('access-control-allow-credentials'), 'true')
    assert.match(res.headers.get('access-control-expose-headers'), /X-Experience-API-Consistent-Through/)
    assert.match(res.headers.get('vary'), /Origin/)
  }
})

test('LRS_CORS_ORIGINS: an origin outside the list gets no CORS headers', async () => {
  const lrs = await startLrs({ LRS_CORS_ORIGINS: 'https://lms.example.com, https://other.example.com' })
  const allowed = await lrs.client('/statements?limit=1', { headers: { Origin: 'https://other.example.com' } })
  assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://other.example.com')
  const refused = await lrs.client('/statements?limit=1', { headers: { Origin: 'https://evil.example.com' } })
  assert.equal(refused.headers.get('access-control-allow-origin'), null)
  assert.equal(refused.headers.get('access-control-allow-credentials'), null)
  const preflight = await fetch(lrs.url + '/xapi/statements', { method: 'OPTIONS', headers: { Origin: 'https://evil.example.com', 'Access-Control-Request-Method': 'POST' } })
  assert.equal(preflight.headers.get('access-control-allow-origin'), null)
})

test('the version reported on a request without a version header is the one its credential last used, however the header is spelled', async () => {
  const lrs = await startLrs()
  assert.equal((await lrs.client('/statements?limit=1', { version: '2.0.0' })).status, 200)
  const other = await lrs.storage.credentials.upsert({ key: 'other', secretHash: require('../../src/auth/secrets').hashSecret('o'), scopes: ['all'] })
  assert.equal(other, undefined)
  assert.equal((await lrs.client('/statements?limit=1', { version: '1.0.3', auth: ['other', 'o'] })).status, 200)
  // The admin credential again, with the scheme in lower case and no version header.
  const res = await fetch(lrs.url + '/xapi/statements', { headers: { Authorization: basic(ADMIN.user, ADMIN.password).replace('Basic', 'basic') } })
  assert.equal(res.status, 400)
  assert.equal(res.headers.get('x-experience-api-version'), '2.0.0')
})

test('every statements response carries X-Experience-API-Consistent-Through, a 401 included (Communication 2.1.3)', async () => {
  const lrs = await startLrs()
  for (const auth of [undefined, [ADMIN.user, 'wrong']]) {
    const res = await lrs.client('/statements', auth ? { auth } : { auth: null })
    assert.equal(res.status, 401)
    assert.ok(res.headers.get('x-experience-api-consistent-through'))
  }
})
