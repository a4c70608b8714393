'use strict'

// The import's progress line on a terminal (src/transfer/progress-line.js):
// a bar, the statements stored, the rate and the time left, fed by a real
// import; a resumed file's rate and time left count that run only.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { createStatementValidator } = require('../../src/validation/statement-validator')
const { importFiles } = require('../../src/transfer/import-statements')
const { progressLine } = require('../../src/transfer/progress-line')

test('an import draws its progress from what is stored, up to a full bar', async () => {
  const lrs = await startLrs()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-progress-'))
  test.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'statements.ndjson')
  fs.writeFileSync(file, Array.from({ length: 2500 }, () => JSON.stringify({ ...statement(), id: crypto.randomUUID() })).join('\n') + '\n')
  const size = fs.statSync(file).size
  const drawn = []
  const show = progressLine(new Map([[file, size]]), { write: (text) => drawn.push(text), everyMs: 0 })
  const [summary] = await importFiles([file], {
    storage: lrs.storage,
    validator: createStatementValidator(lrs.config),
    importAuthority: { objectType: 'Agent', account: { homePage: 'http://example.com', name: 'import' } },
    limits: { maxDepth: lrs.config.maxJsonDepth, maxStringLength: lrs.config.maxStringLength, maxStatementBytes: lrs.config.maxStatementBytes },
    checkpoints: { load: async () => ({ offset: 0 }), save: async () => {}, done: async () => {} },
    onProgress: (p) => show(p)
  })
  show({ ...summary, offset: size }, true)
  assert.equal(summary.stored, 2500)
  assert.match(drawn[0], /\[\.{24}\] 0\.0% {2}0 statements {2}0\/s {2}ETA \? {2}rejected 0/)
  assert.ok(drawn.some((l) => / 2,000 statements /.test(l) && /ETA \d+:\d\d/.test(l)), drawn.join('\n')) // after the first chunk
  assert.match(drawn.at(-1), /^\r.* \[#{24}\] 100\.0% {2}2,500 statements {2}[\d,]+\/s {2}in \d+:\d\d {2}rejected 0 {3}\n$/)
})

test('a resumed file: rate and time left count this run only', () => {
  const drawn = []
  let now = 0
  const show = progressLine(new Map([['f', 1000]]), { write: (text) => drawn.push(text), now: () => now })
  show({ file: 'f', offset: 500, stored: 5000, existing: 0, rejected: 2 }) // resumed half way
  now = 2000
  show({ file: 'f', offset: 750, stored: 7000, existing: 500, rejected: 3 })
  assert.match(drawn[1], /\[#{18}\.{6}\] 75\.0% {2}7,500 statements {2}1,250\/s {2}ETA 0:02 {2}rejected 3/)
  now = 2100 // within 250 ms: not redrawn
  show({ file: 'f', offset: 800, stored: 7100, existing: 500, rejected: 3 })
  assert.equal(drawn.length, 2)
})
