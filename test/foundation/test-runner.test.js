'use strict'

// `npm test` on a machine with Node alone: the sqlite run passes, the
// mongodb run is skipped with one line saying how to enable it, and asking
// for it there fails with that reason. No temporary folder is left behind.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const RUNNER = path.join(__dirname, '../run.js')
const FIXTURE = path.join(__dirname, '../fixtures/trivial.test.js')

// No Go on PATH and an empty cache: FerretDB cannot be had.
function runWithoutGo (engines) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-runner-'))
  const bin = path.join(tmp, 'bin')
  fs.mkdirSync(bin)
  fs.symlinkSync(process.execPath, path.join(bin, 'node'))
  const env = { PATH: bin, HOME: tmp, LRS_CACHE_DIR: path.join(tmp, 'cache'), TMPDIR: tmp }
  if (engines) env.LRS_TEST_ENGINES = engines
  const run = spawnSync(process.execPath, [RUNNER, FIXTURE], { env, encoding: 'utf8', timeout: 60000 })
  const left = fs.readdirSync(tmp).filter((name) => name !== 'bin' && name !== 'cache')
  fs.rmSync(tmp, { recursive: true, force: true })
  return { ...run, left }
}

test('without Go or FerretDB, npm test runs the sqlite half and skips mongodb with one line saying how to enable it', () => {
  const run = runWithoutGo()
  assert.equal(run.status, 0, run.stdout + run.stderr)
  assert.match(run.stdout, /# storage engine: sqlite/)
  assert.match(run.stdout, /# pass 1/)
  assert.match(run.stdout, /# mongodb run skipped: FerretDB is not built and Go is not installed.*LRS_TEST_ENGINES=sqlite,mongodb makes it required/)
  assert.deepEqual(run.left, [], 'no temporary folder is left')
})

test('asked for the mongodb run where FerretDB cannot be had, npm test fails with the reason', () => {
  const run = runWithoutGo('mongodb')
  assert.equal(run.status, 1)
  assert.match(run.stdout, /# mongodb: could not start the run: FerretDB is not built and Go is not installed/)
  assert.deepEqual(run.left, [], 'no temporary folder is left')
})
