'use strict'

// The bounded memories of the LRS (term caches, verified headers, failed
// authentications): never more than their bound, the entries in use kept.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { BoundedMap } = require('../../src/lib/bounded-map')

test('a BoundedMap never holds more than its bound, however many keys come', () => {
  const m = new BoundedMap(1000)
  for (let i = 0; i < 100000; i++) {
    m.set('k' + i, i)
    assert.ok(m.size <= 1000)
  }
  assert.equal(m.get('k99999'), 99999, 'the newest is there')
  assert.equal(m.get('k0'), undefined, 'the oldest is forgotten')
})

test('a BoundedMap keeps a key that is read while new keys come, and forgets the ones nobody reads', () => {
  const m = new BoundedMap(100)
  m.set('kept', 'yes')
  m.set('dropped', 'no')
  for (let i = 0; i < 1000; i++) {
    m.set('k' + i, i)
    if (i % 25 === 0) assert.equal(m.get('kept'), 'yes')
  }
  assert.equal(m.get('kept'), 'yes')
  assert.equal(m.has('dropped'), false)
})

test('a BoundedMap answers has, get, set, delete and iteration as a Map does, over both of its generations', () => {
  const m = new BoundedMap(4)
  m.set('a', 1).set('b', 2).set('c', 3) // a, b in the old generation, c in the young one
  assert.equal(m.size, 3)
  assert.deepEqual([...m].sort(), [['a', 1], ['b', 2], ['c', 3]])
  m.set('a', 10)
  assert.equal(m.get('a'), 10)
  assert.equal(m.size, 3, 'a key set again is counted once')
  for (const [key] of m) if (key !== 'c') m.delete(key) // deleting while iterating, as credential-store.js does
  assert.deepEqual([...m.keys()], ['c'])
  assert.deepEqual([...m.values()], [3])
  assert.equal(m.delete('zz'), false)
  m.clear()
  assert.equal(m.size, 0)
})
