'use strict'

// What `npm run bench` runs and the estimate it prints at its start
// (bench/plan.js): computed from the plan only, no load run.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { planRun, defaultScenarios, duration, about, ESTIMATES, COSTS } = require('../../bench/plan')
const { scenarios, PROFILES } = require('../../bench/scenarios')

const env = {} // no BENCH_* of the machine running the tests
const zero = { ...Object.fromEntries(Object.keys(COSTS).map((k) => [k, 0])), fillPerSecond: { sqlite: Infinity }, writerPool: 0, poolPerSecond: 1, rawPerSecond: Infinity, importPerSecond: Infinity, apiPerSecond: Infinity, exportFilePerSecond: Infinity, purgePerSecond: Infinity }

test('the quick run: ingest (against the engine alone), learner sessions, queries, overload and bulk load; the long scenarios only with --full', () => {
  assert.deepEqual(defaultScenarios('quick'), ['ingest', 'sessions', 'stores-query', 'overload', 'bulk-load'])
  // --full as before: every scenario but scale, which runs only when named
  assert.deepEqual(defaultScenarios('full'), Object.keys(scenarios).filter((n) => n !== 'scale'))
  for (const name of Object.keys(scenarios)) assert.equal(typeof ESTIMATES[name], 'function', `${name} has an estimate`)
})

test('the quick run is estimated under five minutes on a 2-core machine, --full at more than an hour', () => {
  const quick = planRun({ profile: 'quick', cores: 2, env })
  assert.ok(quick.seconds < 5 * 60, `quick run estimated at ${quick.seconds} s`)
  assert.ok(quick.seconds > 2 * 60, `quick run estimated at ${quick.seconds} s: too little for its phases`)
  assert.ok(planRun({ profile: 'full', cores: 2, env }).seconds > 3600)
})

test('the estimate is the sum of its scenarios and the run\'s own cost', () => {
  for (const profile of ['quick', 'full']) {
    const plan = planRun({ profile, cores: 2, env })
    assert.equal(plan.seconds, COSTS.run + plan.scenarios.reduce((t, s) => t + s.seconds, 0))
    assert.deepEqual(plan.scenarios.map((s) => s.name), defaultScenarios(profile))
  }
  const named = planRun({ names: ['overload', 'ingest'], cores: 2, env })
  assert.deepEqual(named.scenarios.map((s) => s.name), ['overload', 'ingest'])
})

test('a scenario\'s estimate is its phases times their durations when starting things costs nothing', () => {
  const plan = (options) => planRun({ cores: 2, env, costs: zero, ...options }).scenarios[0].seconds
  const ingest = PROFILES.ingest.quick // the LRS, then the engine alone, for every batch and connection count
  assert.equal(plan({ names: ['ingest'] }), ingest.batches.length * ingest.connections.length * 2 * ingest.duration)
  const overload = PROFILES.overload.quick
  assert.equal(plan({ names: ['overload'] }), overload.connections.length * overload.seconds)
  const sessions = PROFILES.sessions.quick // every level, then the last sessions' requests
  assert.equal(plan({ names: ['sessions'] }), Math.round((sessions.maxLearners / sessions.stepLearners) * sessions.stepSeconds + (1.5 * sessions.intervalMs) / 1000))
  // --repeat runs a scenario that many times, except those that repeat inside
  assert.equal(plan({ names: ['overload'], repeat: 3 }), 3 * overload.connections.length * overload.seconds)
  const cores = PROFILES.cores.quick
  assert.ok(scenarios.cores.repeatsInside)
  assert.equal(plan({ names: ['cores'], env: { BENCH_WORKERS: '2', BENCH_OVERLOAD: 'none', BENCH_ALONE: '0', BENCH_REPEAT: '2' } }), 2 * (cores.warmupSeconds + cores.seconds))
})

test('against a URL only the scenarios that need nothing but HTTP count', () => {
  const plan = planRun({ names: ['ingest', 'bulk-load'], target: { url: 'http://lrs.example.com' }, cores: 2, env, costs: zero })
  assert.equal(plan.scenarios.find((s) => s.name === 'bulk-load').seconds, 0)
  assert.ok(plan.scenarios.find((s) => s.name === 'ingest').seconds > 0)
})

test('durations in words, estimates rounded up', () => {
  assert.equal(duration(45), '45 s')
  assert.equal(duration(220), '3 min 40 s')
  assert.equal(duration(180), '3 min')
  assert.equal(duration(6840), '1 h 54 min')
  assert.equal(about(212), 'about 3 min 40 s')
  assert.equal(about(1234), 'about 21 min')
  assert.equal(about(6840), 'about 1 h 55 min')
})
