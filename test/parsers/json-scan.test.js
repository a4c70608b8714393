'use strict'

// Property tests of the hand-written JSON scan (src/validation/json-scan.js)
// against JSON.parse on generated input.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fc = require('fast-check')
const { scanJson, withoutMembers } = require('../../src/validation/json-scan')

const NO_LIMITS = { maxDepth: 1e6, maxStringLength: 1e9 }

function depthOf (value) {
  if (value === null || typeof value !== 'object') return 0
  const children = Array.isArray(value) ? value : Object.values(value)
  return 1 + children.reduce((m, c) => Math.max(m, depthOf(c)), 0)
}

// Longest string as sent (escapes included), keys too.
function longestString (value) {
  if (typeof value === 'string') return JSON.stringify(value).length - 2
  if (value === null || typeof value !== 'object') return 0
  let n = 0
  for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    if (!Array.isArray(value)) n = Math.max(n, JSON.stringify(k).length - 2)
    n = Math.max(n, longestString(v))
  }
  return n
}

const statementLike = fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 })
// Strings with quotes, backslashes, braces, brackets and non-ASCII.
const tricky = fc.string({ unit: fc.constantFrom('"', '\\', '{', '}', '[', ']', ',', ':', 'a', 'é', '😀', '\n', '\\"') })

test('each element of an array of objects is found as the text JSON.parse reads as that element, however it is spaced', () => {
  fc.assert(fc.property(fc.array(fc.oneof(statementLike, fc.dictionary(tricky, tricky, { minKeys: 1 }))), fc.constantFrom(0, 1, 2, '\t'), (list, space) => {
    const text = JSON.stringify(list, null, space)
    const texts = scanJson(text, NO_LIMITS)
    assert.equal(texts.length, list.length)
    // what JSON.parse reads of each element's own text (-0 is written as 0)
    texts.forEach((t, i) => assert.deepEqual(JSON.parse(t), JSON.parse(JSON.stringify(list[i]))))
  }), { numRuns: 300 })
})

test('an object is its own text; anything else has none', () => {
  fc.assert(fc.property(fc.jsonValue(), (value) => {
    const text = JSON.stringify(value, null, 1)
    const texts = scanJson(text, NO_LIMITS)
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) assert.deepEqual(texts, [text])
    else if (!Array.isArray(value)) assert.equal(texts, null)
  }), { numRuns: 300 })
})

test('it refuses exactly the nesting deeper than maxDepth and the strings longer than maxStringLength', () => {
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 40 }), (value, maxDepth, maxStringLength) => {
    const text = JSON.stringify(value)
    const tooDeep = depthOf(value) > maxDepth
    const tooLong = longestString(value) > maxStringLength
    let refused = null
    try { scanJson(text, { maxDepth, maxStringLength }) } catch (err) { refused = err }
    assert.equal(refused !== null, tooDeep || tooLong, text)
    if (refused) assert.equal(refused.status, 400)
  }), { numRuns: 500 })
})

// An object with some of `stored` and `authority` among its members, in any
// place: withoutMembers must leave exactly the rest, with the limits of
// scanJson checked on the way.
const withApart = fc.record({
  members: fc.dictionary(fc.oneof(tricky, fc.string()).filter((k) => k !== 'stored' && k !== 'authority'), fc.jsonValue()),
  stored: fc.option(fc.jsonValue(), { nil: undefined }),
  authority: fc.option(fc.jsonValue(), { nil: undefined }),
  at: fc.nat()
})

test('withoutMembers leaves exactly the other members, wherever the cut ones are and however the text is spaced', () => {
  fc.assert(fc.property(withApart, fc.constantFrom(0, 1, '\t'), ({ members, stored, authority, at }, space) => {
    const entries = Object.entries(members)
    const apart = []
    if (stored !== undefined) apart.push(['stored', stored])
    if (authority !== undefined) apart.push(['authority', authority])
    for (const e of apart) entries.splice(at % (entries.length + 1), 0, e)
    const text = JSON.stringify(Object.fromEntries(entries), null, space)
    const out = withoutMembers(text, apart.map(([k]) => k), NO_LIMITS)
    assert.deepEqual(JSON.parse(out), JSON.parse(JSON.stringify(members)))
  }), { numRuns: 500 })
})

test('withoutMembers answers null when a member to cut is missing, repeated or spelled with escapes', () => {
  assert.equal(withoutMembers('{"a":1}', ['stored'], NO_LIMITS), null)
  assert.equal(withoutMembers('{"stored":1,"stored":2}', ['stored'], NO_LIMITS), null)
  assert.equal(withoutMembers('{"stored":1,"stored":2,"a":{"authority":3}}', ['stored', 'authority'], NO_LIMITS), null)
  assert.equal(withoutMembers('{"st\\u006fred":1}', ['stored'], NO_LIMITS), null)
})

test('withoutMembers refuses what scanJson refuses', () => {
  fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 8 }), { minKeys: 1 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 40 }), (value, maxDepth, maxStringLength) => {
    const text = JSON.stringify(value)
    const refusal = (fn) => { try { fn(); return null } catch (err) { return err.message } }
    assert.equal(refusal(() => withoutMembers(text, [], { maxDepth, maxStringLength })), refusal(() => scanJson(text, { maxDepth, maxStringLength })))
  }), { numRuns: 500 })
})

test('the member count of the text agrees with the parsed value, and a name given twice is refused by both scans', () => {
  fc.assert(fc.property(fc.jsonValue(), fc.constantFrom(0, 1, '\t'), (value, space) => {
    const text = JSON.stringify(value, null, space)
    const parsed = JSON.parse(text)
    scanJson(text, { ...NO_LIMITS, parsed })
    if (text.startsWith('{')) withoutMembers(text, [], { ...NO_LIMITS, parsed })
  }), { numRuns: 500 })
  for (const text of ['{"a":1,"a":2}', '{"a":{"b":[{"c":1,"c":1}]}}', '[{"x":1},{"y":{"z":1,"\\u007a":2}}]']) {
    const parsed = JSON.parse(text)
    assert.throws(() => scanJson(text, { ...NO_LIMITS, parsed }), /twice/, text)
    if (text.startsWith('{')) assert.throws(() => withoutMembers(text, [], { ...NO_LIMITS, parsed }), /twice/, text)
  }
})
