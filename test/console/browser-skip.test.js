'use strict'

// The browser tests on a machine without Chromium: skipped with one line
// saying how to run them, unless LRS_TEST_BROWSER=required (CI), where the
// run fails with the reason.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawnSync } = require('node:child_process')

const FILE = path.join(__dirname, 'docs-page.test.js')

// PATH holds node alone: no chromium to find.
function runWithoutChromium (extra = {}) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-nobrowser-'))
  try {
    fs.symlinkSync(process.execPath, path.join(tmp, 'node'))
    const env = { PATH: tmp, HOME: tmp, TMPDIR: tmp, ...extra }
    return spawnSync(process.execPath, ['--test', '--test-reporter=tap', FILE], { env, encoding: 'utf8', timeout: 60000 })
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

test('without chromium, a browser test file skips with one line saying how to run it', () => {
  const run = runWithoutChromium()
  assert.equal(run.status, 0, run.stdout + run.stderr)
  const lines = run.stdout.split('\n').filter((l) => /# SKIP browser tests skipped: no chromium/.test(l))
  assert.equal(lines.length, 1, run.stdout)
  assert.match(lines[0], /LRS_TEST_BROWSER=required makes them required/)
})

test('with LRS_TEST_BROWSER=required and no chromium, the browser tests fail with the reason', () => {
  const run = runWithoutChromium({ LRS_TEST_BROWSER: 'required' })
  assert.equal(run.status, 1)
  assert.match(run.stdout, /LRS_TEST_BROWSER=required but no chromium on PATH/)
})
