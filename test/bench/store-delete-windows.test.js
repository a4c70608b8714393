'use strict'

// Which windows of the store-delete scenario (bench/stores.js) count as
// "during the purge", from fixed times: no load run and no storage engine.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { purgeWindows } = require('../../bench/stores')

const w = (when, startMs, endMs, p99Ms) => ({ when, startMs, endMs, p99Ms })

test('a window started before the purge was seen to end but run mostly after it counts in neither set', () => {
  // purge from 1,000 to 11,500 ms; 5 s windows
  const windows = [w('before', -9000, -4000, 40), w('before', -4000, 1000, 42),
    w('during the purge', 1000, 6000, 71), w('during the purge', 6000, 11000, 77), w('during the purge', 11000, 16000, 29),
    w('after', 16000, 21000, 45)]
  const { during, baseline } = purgeWindows(windows, 1000, 11500)
  assert.deepEqual(during.map((x) => x.p99Ms), [71, 77])
  assert.deepEqual(baseline.map((x) => x.p99Ms), [40, 42, 45])
  assert.equal(windows[4].when, 'as the purge ended', 'the report names it so')
})

test('a window with half or more of its time in the purge is during it', () => {
  const windows = [w('during the purge', 0, 5000, 60), w('during the purge', 5000, 10000, 65)]
  const { during } = purgeWindows(windows, 0, 7500)
  assert.deepEqual(during.map((x) => x.p99Ms), [60, 65])
})

test('a purge shorter than half a window still has its window: the one it overlapped most', () => {
  const windows = [w('before', -5000, 0, 40), w('during the purge', 0, 5000, 90), w('during the purge', 5000, 10000, 41)]
  const { during, baseline } = purgeWindows(windows, 100, 1500)
  assert.deepEqual(during.map((x) => x.p99Ms), [90])
  assert.deepEqual(baseline.map((x) => x.p99Ms), [40])
  assert.equal(windows[2].when, 'as the purge ended')
})
