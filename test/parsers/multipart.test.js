'use strict'

// Property tests of the hand-written multipart/mixed parser
// (src/http/multipart.js): what a reference builder splits into parts
// comes back as the same parts.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fc = require('fast-check')
const { parseMultipart, buildMultipart } = require('../../src/http/multipart')
const { multipart } = require('../helpers/multipart')

const headerName = fc.constantFrom('Content-Type', 'X-Experience-API-Hash', 'Content-Transfer-Encoding', 'X-Other')
const headerValue = fc.stringMatching(/^[A-Za-z0-9/;=. _-]{1,30}$/).map((v) => v.trim()).filter((v) => v.length > 0)
const part = fc.record({ headers: fc.dictionary(headerName, headerValue, { minKeys: 1 }), body: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) })
const boundary = fc.stringMatching(/^[A-Za-z0-9'()+_,.\/:=?-]{1,40}$/)

// RFC 2046: a part (headers and body) never holds its boundary delimiter.
function free (parts, b) {
  const delimiter = Buffer.from('--' + b)
  return parts.every((p) => !p.body.includes(delimiter) && !Object.values(p.headers).some((v) => v.includes('--' + b)))
}

function lowerCased (headers) {
  return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
}

test('the parts of a multipart/mixed body come back with their headers and bytes', () => {
  fc.assert(fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), boundary, (parts, b) => {
    fc.pre(free(parts, b))
    const body = multipart(parts, b)
    const parsed = parseMultipart(body, b)
    assert.equal(parsed.length, parts.length)
    parsed.forEach((p, i) => {
      assert.deepEqual(p.headers, lowerCased(parts[i].headers))
      assert.ok(p.body.equals(parts[i].body), `part ${i}`)
    })
  }), { numRuns: 300 })
})

test('what buildMultipart writes, parseMultipart reads back', () => {
  fc.assert(fc.property(fc.array(part, { minLength: 1, maxLength: 5 }), boundary, (parts, b) => {
    fc.pre(free(parts, b))
    const parsed = parseMultipart(buildMultipart(parts, b), b)
    assert.deepEqual(parsed.map((p) => p.body.toString('hex')), parts.map((p) => p.body.toString('hex')))
  }), { numRuns: 200 })
})

test('a body without its boundary, or not closed by it, is 400', () => {
  assert.throws(() => parseMultipart(Buffer.from('no parts here'), 'b1'), (err) => err.status === 400)
  assert.throws(() => parseMultipart(Buffer.from('--b1\r\nContent-Type: a/b\r\n\r\nbytes'), 'b1'), (err) => err.status === 400)
  assert.throws(() => parseMultipart(Buffer.from('--b1--'), undefined), (err) => err.status === 400)
})
