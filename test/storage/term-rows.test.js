'use strict'

// Property test of the SQLite writer's ordering of (term, seq) index rows
// (src/storage/sqlite/write-ops.js), which packs each pair into one number
// to sort: the same order as sorting the pairs, for any term ids and seqs,
// in any order, repeated or not.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fc = require('fast-check')
const { sortedRows } = require('../../src/storage/sqlite/write-ops')

const bySorting = (terms, seqs) => terms.map((t, i) => [t, seqs[i]]).sort((a, b) => a[0] - b[0] || a[1] - b[1]).flat()

test('index rows come out in (term, seq) order, every pair once, whatever the ids and their order', () => {
  const seq = fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 3.4e15, max: 3.8e15 }))
  // small ids share terms between rows; ids past 2^45 take the path that cannot pack
  const term = fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 2 ** 40 }), fc.integer({ min: 2 ** 45, max: 2 ** 50 }))
  fc.assert(fc.property(fc.array(fc.tuple(term, seq), { maxLength: 300 }), (pairs) => {
    const terms = pairs.map((p) => p[0])
    const seqs = pairs.map((p) => p[1])
    assert.deepEqual(sortedRows(terms, seqs), bySorting(terms, seqs))
  }), { numRuns: 500 })
})
