'use strict'

// Property test of the SQLite engine's statement ids as blobs
// (src/storage/sqlite/ids.js), whose common path decodes a UUID's
// characters itself: the same 16 bytes as hex-decoding the id without its
// dashes, for UUIDs in either case and for anything else (which takes the
// general path), and back to the lower-cased id.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fc = require('fast-check')
const { idToBlob, blobToId } = require('../../src/storage/sqlite/ids')

const general = (id) => Buffer.from(id.replace(/-/g, ''), 'hex')

test('a UUID becomes its 16 bytes and comes back lower-cased, in either case', () => {
  fc.assert(fc.property(fc.uuid(), fc.boolean(), (uuid, upper) => {
    const id = upper ? uuid.toUpperCase() : uuid
    const blob = idToBlob(id)
    assert.deepEqual(blob, general(id))
    assert.equal(blob.length, 16)
    assert.equal(blobToId(blob), uuid.toLowerCase())
  }), { numRuns: 2000 })
})

test('what is not a UUID is decoded as before, bad characters and all', () => {
  const hexish = fc.stringOf(fc.constantFrom(...'0123456789abcdefABCDEFgz-\u0131 '), { minLength: 30, maxLength: 40 })
  const nearUuid = fc.tuple(fc.uuid(), fc.nat(35), fc.constantFrom('g', '-', 'Z', '\u0661', ' ')).map(([u, at, c]) => u.slice(0, at) + c + u.slice(at + 1))
  // (but a store's qualified id, s<n>|<id>: below)
  fc.assert(fc.property(fc.oneof(hexish, nearUuid, fc.string()).filter((id) => !/^s\d+\|/.test(id)), (id) => {
    assert.deepEqual(idToBlob(id), general(id))
  }), { numRuns: 3000 })
})

test('an id of a store but the default one (s<n>|<id>) is its 16 bytes and then the store\'s number, and decodes back', () => {
  fc.assert(fc.property(fc.uuid(), fc.integer({ min: 1, max: 65535 }), (uuid, store) => {
    const blob = idToBlob(`s${store}|${uuid}`)
    assert.equal(blob.length, 20)
    assert.deepEqual(blob.subarray(0, 16), idToBlob(uuid))
    assert.equal(blobToId(blob), `s${store}|${uuid}`)
  }), { numRuns: 500 })
})

test('a store\'s id with anything after its prefix is read as the plain id would be, cut or padded to 16 bytes, then the number', () => {
  const rest = fc.oneof(fc.uuid(), fc.uuid().map((u) => u.toUpperCase()), fc.uuid().map((u) => u.slice(0, 9) + 'g' + u.slice(10)), fc.string(), fc.hexaString({ maxLength: 40 })).filter((id) => !/^s\d+\|/.test(id))
  fc.assert(fc.property(fc.integer({ min: 1, max: 2047 }), rest, (store, id) => {
    const expected = Buffer.alloc(20)
    idToBlob(id).copy(expected, 0, 0, 16)
    expected.writeUInt32BE(store, 16)
    assert.deepEqual(idToBlob(`s${store}|${id}`), expected)
  }), { numRuns: 3000 })
  // not a store's prefix: the general path
  for (const id of ['s|' + '0'.repeat(32), 'sx|abcd', 's12abcd']) assert.deepEqual(idToBlob(id), general(id))
})
