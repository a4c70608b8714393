'use strict'

// Issue 55 item 10: answers are compressed as Accept-Encoding asks (RFC 9110
// 12.5.3): statement pages, /admin and /openapi.json per answer above
// LRS_COMPRESSION_MIN_BYTES; the console's and docs' static files
// compressed once; never the documents.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const http = require('node:http')
const path = require('node:path')
const zlib = require('node:zlib')
const crypto = require('node:crypto')
const { startLrs, basic, ADMIN } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { preferredCoding } = require('../../src/http/compression')

const AUTH = basic(ADMIN.user, ADMIN.password)
const XAPI = { Authorization: AUTH, 'X-Experience-API-Version': '1.0.3' }
const SWAGGER_BUNDLE = path.join(path.dirname(require.resolve('swagger-ui-dist/package.json')), 'swagger-ui-bundle.js')
const CONSOLE_INDEX = path.join(__dirname, '../../src/console/public/index.html')

// The answer as it came over the wire (fetch would decode it): status,
// headers, and the body's bytes, still encoded.
function request (url, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    http.request(url, { method, headers }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    }).on('error', reject).end()
  })
}

function decoded (res) {
  const coding = res.headers['content-encoding']
  if (coding === 'br') return zlib.brotliDecompressSync(res.body)
  if (coding === 'gzip') return zlib.gunzipSync(res.body)
  assert.equal(coding, undefined)
  return res.body
}

async function storeStatements (lrs, n) {
  const res = await lrs.client('/statements', { method: 'POST', body: Array.from({ length: n }, () => statement()) })
  assert.equal(res.status, 200, res.text)
  return res.json
}

test('Accept-Encoding weights choose the coding: brotli on a tie, identity only when asked above both (RFC 9110 12.5.3)', () => {
  assert.equal(preferredCoding(undefined), null)
  assert.equal(preferredCoding(''), null)
  assert.equal(preferredCoding('gzip, deflate, br, zstd'), 'br')
  assert.equal(preferredCoding('gzip'), 'gzip')
  assert.equal(preferredCoding('br;q=0.5, gzip'), 'gzip')
  assert.equal(preferredCoding('gzip;q=0.5, br;q=0.8'), 'br')
  assert.equal(preferredCoding('br;q=0, gzip;q=0'), null)
  assert.equal(preferredCoding('*'), 'br')
  assert.equal(preferredCoding('*;q=0.5, br;q=0'), 'gzip')
  assert.equal(preferredCoding('*;q=0'), null)
  assert.equal(preferredCoding('identity'), null)
  assert.equal(preferredCoding('identity;q=1, gzip;q=0.5'), null)
  assert.equal(preferredCoding('deflate'), null)
  assert.equal(preferredCoding('GZIP;Q=1'), 'gzip')
})

test('a page of statements in br or gzip decodes to the JSON sent without Accept-Encoding; HEAD says what GET sends', async () => {
  const lrs = await startLrs()
  await storeStatements(lrs, 40)
  const url = lrs.url + '/xapi/statements?limit=40'
  const plain = await request(url, { headers: XAPI })
  assert.equal(plain.status, 200)
  assert.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding: the body as it is')
  assert.match(plain.headers.vary, /Accept-Encoding/)
  const page = JSON.parse(plain.body)
  assert.equal(page.statements.length, 40)
  for (const [acceptEncoding, coding] of [['br', 'br'], ['gzip', 'gzip'], ['gzip, deflate, br', 'br'], ['br;q=0.1, gzip', 'gzip']]) {
    const res = await request(url, { headers: { ...XAPI, 'Accept-Encoding': acceptEncoding } })
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-encoding'], coding, acceptEncoding)
    assert.match(res.headers.vary, /Accept-Encoding/)
    assert.equal(Number(res.headers['content-length']), res.body.length)
    assert.ok(res.body.length < plain.body.length / 3, `${res.body.length} bytes of ${plain.body.length}`)
    assert.deepEqual(JSON.parse(decoded(res)), page)
    assert.ok(res.headers['x-experience-api-consistent-through'], 'the xAPI headers stay')

    const head = await request(url, { method: 'HEAD', headers: { ...XAPI, 'Accept-Encoding': acceptEncoding } })
    assert.equal(head.status, 200)
    assert.equal(head.headers['content-encoding'], coding)
    assert.equal(head.headers['content-length'], res.headers['content-length'])
    assert.equal(head.body.length, 0)
  }
  const plainHead = await request(url, { method: 'HEAD', headers: XAPI })
  assert.equal(plainHead.headers['content-encoding'], undefined)
  assert.equal(Number(plainHead.headers['content-length']), plain.body.length)
})

test('answers under LRS_COMPRESSION_MIN_BYTES go as they are', async () => {
  const lrs = await startLrs()
  const [id] = await storeStatements(lrs, 1)
  const one = await request(`${lrs.url}/xapi/statements?statementId=${id}`, { headers: { ...XAPI, 'Accept-Encoding': 'br, gzip' } })
  assert.equal(one.status, 200)
  assert.ok(one.body.length < 1024, `${one.body.length} bytes`)
  assert.equal(one.headers['content-encoding'], undefined)
  assert.equal(JSON.parse(one.body).id, id)

  const strict = await startLrs({ LRS_COMPRESSION_MIN_BYTES: String(1024 * 1024) })
  await storeStatements(strict, 40)
  const page = await request(strict.url + '/xapi/statements?limit=40', { headers: { ...XAPI, 'Accept-Encoding': 'br' } })
  assert.equal(page.status, 200)
  assert.equal(page.headers['content-encoding'], undefined)
  assert.equal(JSON.parse(page.body).statements.length, 40)
})

test('/openapi.json and the /admin API are compressed; documents never are (their ETag names the stored bytes)', async () => {
  const lrs = await startLrs()
  const openapi = await request(lrs.url + '/openapi.json', { headers: { 'Accept-Encoding': 'br' } })
  assert.equal(openapi.headers['content-encoding'], 'br')
  assert.equal(JSON.parse(decoded(openapi)).openapi.slice(0, 2), '3.')
  for (let i = 0; i < 12; i++) {
    const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['statements/read'] } })
    assert.equal(made.status, 201, made.text)
  }
  const list = await request(lrs.url + '/admin/credentials', { headers: { Authorization: AUTH, 'Accept-Encoding': 'gzip' } })
  assert.equal(list.status, 200)
  assert.equal(list.headers['content-encoding'], 'gzip')
  assert.equal(JSON.parse(decoded(list)).credentials.length, 13)

  const doc = { notes: 'x'.repeat(8000) }
  const state = `/activities/state?activityId=${encodeURIComponent('http://example.com/a')}&agent=${encodeURIComponent(JSON.stringify({ mbox: 'mailto:a@example.com' }))}&stateId=s`
  assert.equal((await lrs.client(state, { method: 'PUT', body: doc })).status, 204)
  const got = await request(lrs.url + '/xapi' + state, { headers: { ...XAPI, 'Accept-Encoding': 'br, gzip' } })
  assert.equal(got.status, 200)
  assert.equal(got.headers['content-encoding'], undefined)
  assert.deepEqual(JSON.parse(got.body), doc)
  assert.equal(got.headers.etag, `"${crypto.createHash('sha1').update(got.body).digest('hex')}"`)
})

test('the console and the Swagger UI bundle are served compressed, with Vary, their own ETags, 304 and HEAD', async () => {
  const lrs = await startLrs()
  const bundle = fs.readFileSync(SWAGGER_BUNDLE)
  const url = lrs.url + '/docs/swagger-ui/swagger-ui-bundle.js'
  const plain = await request(url)
  assert.equal(plain.status, 200)
  assert.equal(plain.headers['content-encoding'], undefined)
  assert.match(plain.headers.vary, /Accept-Encoding/)
  assert.ok(plain.body.equals(bundle))
  const etags = new Set([plain.headers.etag])
  for (const coding of ['br', 'gzip']) {
    const res = await request(url, { headers: { 'Accept-Encoding': coding } })
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-encoding'], coding)
    assert.match(res.headers.vary, /Accept-Encoding/)
    assert.equal(res.headers['content-type'], plain.headers['content-type'])
    assert.equal(res.headers['content-security-policy'], plain.headers['content-security-policy'])
    assert.equal(Number(res.headers['content-length']), res.body.length)
    assert.ok(res.body.length < bundle.length / 3, `${coding}: ${res.body.length} bytes of ${bundle.length}`)
    assert.ok(decoded(res).equals(bundle))
    etags.add(res.headers.etag)

    const again = await request(url, { headers: { 'Accept-Encoding': coding, 'If-None-Match': res.headers.etag } })
    assert.equal(again.status, 304)
    assert.equal(again.body.length, 0)
    const head = await request(url, { method: 'HEAD', headers: { 'Accept-Encoding': coding } })
    assert.equal(head.status, 200)
    assert.equal(head.headers['content-encoding'], coding)
    assert.equal(head.headers['content-length'], res.headers['content-length'])
    assert.equal(head.body.length, 0)
  }
  assert.equal(etags.size, 3, 'each representation its own ETag')

  const index = fs.readFileSync(CONSOLE_INDEX)
  const page = await request(lrs.url + '/console/', { headers: { 'Accept-Encoding': 'gzip, deflate, br' } })
  assert.equal(page.status, 200)
  assert.equal(page.headers['content-encoding'], 'br')
  assert.match(page.headers['content-type'], /^text\/html/)
  assert.ok(decoded(page).equals(index))
  const redirect = await request(lrs.url + '/console', { headers: { 'Accept-Encoding': 'br' } })
  assert.equal(redirect.status, 301, 'the folder without its slash is still redirected')
})

test('LRS_COMPRESSION=off: nothing is compressed', async () => {
  const lrs = await startLrs({ LRS_COMPRESSION: 'off' })
  await storeStatements(lrs, 40)
  for (const [url, headers] of [[lrs.url + '/xapi/statements?limit=40', XAPI], [lrs.url + '/docs/swagger-ui/swagger-ui-bundle.js', {}], [lrs.url + '/openapi.json', {}]]) {
    const res = await request(url, { headers: { ...headers, 'Accept-Encoding': 'br, gzip' } })
    assert.equal(res.status, 200)
    assert.equal(res.headers['content-encoding'], undefined, url)
  }
})
