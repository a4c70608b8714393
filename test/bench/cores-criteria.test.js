'use strict'

// The cores scenario's summary and the criteria it prints (bench/cores.js),
// from fixed measurements: no load run and no storage engine.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { summarize, checkCriteria, matchedConnections, settingsFromEnv } = require('../../bench/cores')

const run = (part, workers, connections, statementsPerSec, cpuMicrosPerStatement, repetition = 1) =>
  ({ repetition, part, workers, apps: `lrs x${workers}, lrs-writer x1`, connections, statementsPerSec, cpuMicrosPerStatement, refused429: 0, fiveXX: 0, errors: 0, restarts: 0 })

test('BENCH_MATCHED gives 2 workers the connections per worker that 8 have at 64', () => {
  assert.equal(matchedConnections(2, 8, 64), 16)
  assert.equal(matchedConnections(1, 16, 8), 1) // never fewer than one
  assert.deepEqual(settingsFromEnv({ BENCH_MATCHED: '1' }), { matched: true })
  assert.deepEqual(settingsFromEnv({}), {})
})

test('the 2-core criterion reads 8 workers against 2 at 64 connections, and against 2 at the same connections per worker when measured', () => {
  const steps = [
    run('workers', 2, 64, 10000, 180), run('same load per worker', 2, 16, 7400, 240), run('workers', 8, 64, 8700, 210),
    run('workers', 2, 64, 9000, 190, 2), run('same load per worker', 2, 16, 7800, 250, 2), run('workers', 8, 64, 8500, 220, 2)
  ]
  const summary = summarize(steps)
  assert.deepEqual(summary.sweep.map((r) => [r.workers, r.statementsPerSec]), [[2, 9500], [8, 8600]])
  assert.deepEqual(summary.matched.map((r) => [r.workers, r.connections, r.statementsPerSec]), [[2, 16, 7600]])

  const check = checkCriteria(summary, { cores: 2 }).find((c) => c.criterion.startsWith('8 workers >= 95 %'))
  assert.equal(check.verdict, 'fail')
  assert.equal(check.detail, '8,600 against 9,500 st/s: 91 %; at the same connections per worker (2 workers at 16), 113 % (7,600 st/s, CPU per statement 0.88x)')

  const without = checkCriteria(summarize(steps.filter((s) => s.part === 'workers')), { cores: 2 }).find((c) => c.criterion.startsWith('8 workers >= 95 %'))
  assert.equal(without.detail, '8,600 against 9,500 st/s: 91 %')
})
