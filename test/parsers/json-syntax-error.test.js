'use strict'

// Where refused JSON goes wrong (src/validation/json-syntax-error.js): the
// first character JSON does not allow, by line and column; valid text has
// no error, exactly as JSON.parse judges it.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fc = require('fast-check')
const { describeJsonError } = require('../../src/validation/json-syntax-error')

const parses = (text) => { try { JSON.parse(text); return true } catch { return false } }

test('the first error is named by line, column and what was found', () => {
  assert.equal(describeJsonError('{"a":1,}'), "line 1, column 8: unexpected '}'")
  assert.equal(describeJsonError('{"a":1\n "b":2}'), 'line 2, column 2: unexpected \'"\'')
  assert.equal(describeJsonError('[{"a":'), 'line 1, column 7: the text ends too soon')
  assert.equal(describeJsonError(''), 'line 1, column 1: the text ends too soon')
  assert.equal(describeJsonError('[1,2]]'), "line 1, column 6: unexpected ']'")
  assert.equal(describeJsonError('{"a":\u0001}'), 'line 1, column 6: unexpected character U+0001')
  assert.equal(describeJsonError('{"a": [1, {"b": null}], "c": "x\\u0041"}'), null)
})

test('it finds an error exactly when JSON.parse does (any text, and JSON with a few characters inserted)', () => {
  fc.assert(fc.property(fc.json(), (text) => describeJsonError(text) === null))
  fc.assert(fc.property(fc.string(), (text) => (describeJsonError(text) === null) === parses(text)), { numRuns: 5000 })
  fc.assert(fc.property(fc.json(), fc.nat(), fc.string({ maxLength: 2 }), (json, at, insert) => {
    const k = at % (json.length + 1)
    const text = json.slice(0, k) + insert + json.slice(k)
    return (describeJsonError(text) === null) === parses(text)
  }), { numRuns: 5000 })
})
