'use strict'

// Issue 10 item 7: sizes have documented limits and never cause 5xx.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { postWithAttachments, attachmentOf } = require('../helpers/multipart')

test('an attachment of 17 MiB (more than a MongoDB document holds) is stored and returned whole', async () => {
  const lrs = await startLrs()
  const content = crypto.randomBytes(17 * 1024 * 1024)
  const s = statement({ attachments: [attachmentOf(content)] })
  const res = await postWithAttachments(lrs.client, [s], [{ content }])
  assert.equal(res.status, 200, res.text)
  const got = await lrs.client(`/statements?statementId=${res.json[0]}&attachments=true`)
  assert.equal(got.status, 200)
  const start = got.buffer.indexOf(content.subarray(0, 64))
  assert.ok(start > 0, 'the attachment part is in the answer')
  assert.ok(got.buffer.subarray(start, start + content.length).equals(content), 'byte for byte')
})

test('more statements in one request than LRS_MAX_STATEMENTS_PER_REQUEST is 413; nothing is stored', async () => {
  const lrs = await startLrs({ LRS_MAX_STATEMENTS_PER_REQUEST: '5' })
  const body = Array.from({ length: 6 }, () => statement({ id: crypto.randomUUID() }))
  const res = await lrs.client('/statements', { method: 'POST', body })
  assert.equal(res.status, 413)
  assert.match(res.json.message, /LRS_MAX_STATEMENTS_PER_REQUEST/)
  assert.equal((await lrs.client(`/statements?statementId=${body[0].id}`)).status, 404)
  assert.equal((await lrs.client('/statements', { method: 'POST', body: body.slice(0, 5) })).status, 200)
})

test('nesting deeper than LRS_MAX_JSON_DEPTH is 400, in statements and in merged documents', async () => {
  const lrs = await startLrs({ LRS_MAX_JSON_DEPTH: '10' })
  // 20,000 levels: JSON.stringify itself could not write it, so the text is built by hand.
  const deep = '{"d":'.repeat(20000) + '"x"' + '}'.repeat(20000)
  const s = JSON.stringify(statement({ result: { extensions: { 'http://example.com/ext': 'DEEP' } } })).replace('"DEEP"', deep)
  const json = { 'Content-Type': 'application/json' }
  const res = await lrs.client('/statements', { method: 'POST', body: s, headers: json })
  assert.equal(res.status, 400, res.text)
  assert.match(res.json.message, /LRS_MAX_JSON_DEPTH/)
  const doc = '/activities/state?activityId=http%3A%2F%2Fexample.com%2Fa&agent=%7B%22mbox%22%3A%22mailto%3Aa%40b.c%22%7D&stateId=deep'
  const merge = await lrs.client(doc, { method: 'POST', body: `{"deep":${deep}}`, headers: json })
  assert.equal(merge.status, 400, merge.text)
  // A document stored by PUT, however deep, is not merged into with 500.
  assert.equal((await lrs.client(doc, { method: 'PUT', body: `{"deep":${deep}}`, headers: { ...json, 'If-None-Match': '*' } })).status, 204)
  assert.equal((await lrs.client(doc, { method: 'POST', body: { more: 1 } })).status, 400)
})

test('strings longer than LRS_MAX_STRING_LENGTH and IRIs longer than LRS_MAX_IRI_LENGTH are 400', async () => {
  const lrs = await startLrs({ LRS_MAX_STRING_LENGTH: '2000', LRS_MAX_IRI_LENGTH: '100' })
  const long = await lrs.client('/statements', { method: 'POST', body: statement({ result: { response: 'x'.repeat(2001) } }) })
  assert.equal(long.status, 400)
  assert.match(long.json.message, /LRS_MAX_STRING_LENGTH/)
  const iri = `http://example.com/${'a'.repeat(100)}`
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement({ verb: { id: iri } }) })).status, 400)
  assert.equal((await lrs.client(`/statements?verb=${encodeURIComponent(iri)}`)).status, 400)
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement({ result: { response: 'x'.repeat(1900) } }) })).status, 200)
})

test('agent parameters keep the string limit, and mbox values the IRI limit, like statements', async () => {
  const lrs = await startLrs({ LRS_MAX_STRING_LENGTH: '2000', LRS_MAX_IRI_LENGTH: '100' })
  const agent = (a) => `/statements?agent=${encodeURIComponent(JSON.stringify(a))}`
  const longName = await lrs.client(agent({ account: { homePage: 'http://example.com', name: 'n'.repeat(2001) } }))
  assert.equal(longName.status, 400)
  assert.match(longName.json.message, /LRS_MAX_STRING_LENGTH/)
  const mbox = `mailto:${'a'.repeat(100)}@example.com`
  assert.equal((await lrs.client(agent({ mbox }))).status, 400)
  assert.equal((await lrs.client(`/activities/state?activityId=http%3A%2F%2Fexample.com%2Fa&stateId=s&agent=${encodeURIComponent(JSON.stringify({ mbox }))}`)).status, 400)
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement({ actor: { mbox } }) })).status, 400)
  assert.equal((await lrs.client(agent({ mbox: 'mailto:short@example.com' }))).status, 200)
  assert.equal((await lrs.client(agent({ account: { homePage: 'http://example.com', name: 'n'.repeat(1900) } }))).status, 200)
})

test('a statement larger than LRS_MAX_STATEMENT_BYTES is 413, and a document larger than LRS_MAX_DOCUMENT_BYTES is 413', async () => {
  const lrs = await startLrs({ LRS_MAX_STATEMENT_BYTES: '4096', LRS_MAX_DOCUMENT_BYTES: '4096' })
  const big = statement({ result: { extensions: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`http://example.com/e${i}`, 'y'.repeat(500)])) } })
  const res = await lrs.client('/statements', { method: 'POST', body: big })
  assert.equal(res.status, 413)
  assert.match(res.json.message, /LRS_MAX_STATEMENT_BYTES/)
  const doc = '/activities/state?activityId=http%3A%2F%2Fexample.com%2Fa&agent=%7B%22mbox%22%3A%22mailto%3Aa%40b.c%22%7D&stateId=big'
  const put = await lrs.client(doc, { method: 'PUT', body: Buffer.alloc(5000, 1), headers: { 'Content-Type': 'application/octet-stream', 'If-None-Match': '*' } })
  assert.equal(put.status, 413)
  assert.equal((await lrs.client(doc, { method: 'POST', body: { a: 'z'.repeat(3000) } })).status, 204)
  assert.equal((await lrs.client(doc, { method: 'POST', body: { b: 'z'.repeat(3000) } })).status, 413, 'a merge that would grow past the limit')
})
