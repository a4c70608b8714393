'use strict'

// Property test of the SQLite engine's statement bodies
// (src/storage/sqlite/body-codec.js), packed and unpacked with one zlib
// stream per process, reset between bodies (src/lib/reused-zlib.js): every
// text comes back as it went in, whatever came before it (a body too large
// for the stream's output buffer, a damaged one); bodies packed the way
// earlier versions packed them (a fresh stream each) read the same.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const zlib = require('node:zlib')
const fc = require('fast-check')
const { packBody, unpackBody, DICTIONARY_V1 } = require('../../src/storage/sqlite/body-codec')
const { reusedZlib, OUTPUT_BYTES } = require('../../src/lib/reused-zlib')

const DEFLATE_V1 = { level: 3, windowBits: 12, memLevel: 4, dictionary: DICTIONARY_V1 }
const asStoredBefore = (text) => Buffer.concat([Buffer.from([1]), zlib.deflateRawSync(text, DEFLATE_V1)])

// Statement-like texts, small and (sometimes) past the output buffer.
const statementText = fc.record({
  id: fc.uuid(),
  actor: fc.record({ mbox: fc.emailAddress().map((e) => 'mailto:' + e), name: fc.string({ unit: 'grapheme' }) }),
  verb: fc.constantFrom('http://adlnet.gov/expapi/verbs/completed', 'http://adlnet.gov/expapi/verbs/answered', 'https://example.com/verbs/x'),
  result: fc.option(fc.record({ response: fc.string({ unit: 'binary', maxLength: 300 }), extensions: fc.dictionary(fc.webUrl(), fc.jsonValue({ maxDepth: 3 })) })),
  filler: fc.option(fc.nat(3 * OUTPUT_BYTES).map((n) => 'x'.repeat(n)), { freq: 4 })
}).map((s) => JSON.stringify(s))

test('every statement text comes back as it went in, and reads the same as a body packed by a fresh stream', () => {
  fc.assert(fc.property(fc.array(statementText, { minLength: 1, maxLength: 6 }), (texts) => {
    const packed = texts.map(packBody)
    texts.forEach((text, i) => {
      assert.equal(unpackBody(packed[i]), text)
      if (typeof packed[i] !== 'string') assert.equal(zlib.inflateRawSync(packed[i].subarray(1), { dictionary: DICTIONARY_V1 }).toString(), text)
      assert.equal(unpackBody(asStoredBefore(text)), text)
    })
  }), { numRuns: 300 })
})

test('a damaged body fails alone: the bodies read after it come back right', () => {
  const texts = ['{"id":"a","verb":{"id":"http://adlnet.gov/expapi/verbs/completed"}}', JSON.stringify({ id: 'b', big: 'y'.repeat(2 * OUTPUT_BYTES) })]
  const [small, big] = texts.map(packBody)
  const truncated = small.subarray(0, small.length - 3)
  const garbage = Buffer.from([1, 0xff, 0xfe, 0xfd, 0x00, 0x13])
  for (const damaged of [truncated, garbage]) {
    assert.throws(() => unpackBody(damaged))
    assert.equal(unpackBody(small), texts[0])
    assert.equal(unpackBody(big), texts[1])
    assert.equal(unpackBody(small), texts[0])
  }
})

test('on this Node the stream is reused: two results share one output buffer', () => {
  const inflate = reusedZlib(zlib.createInflateRaw, zlib.inflateRawSync, {})
  const a = inflate(zlib.deflateRawSync('first'))
  const b = inflate(zlib.deflateRawSync('second'))
  assert.equal(b.toString(), 'second')
  assert.equal(a.buffer, b.buffer, 'each result came from a new zlib stream')
})
