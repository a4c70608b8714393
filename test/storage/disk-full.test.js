'use strict'

// A full disk (SQLite's SQLITE_FULL, here from a file capped with
// max_page_count): writes get 507 with a message that says the store is
// full, nothing of the request is stored, readiness says why, the operator
// sees one error line per episode, and the episode ends once space is back.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, ENGINE } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')

const skip = ENGINE !== 'sqlite' && 'SQLITE_FULL is the sqlite engine\'s'
// Random text: the store deflates statement bodies, and 30 KB of one letter
// would take a few bytes.
const big = (overrides) => statement({ result: { response: crypto.randomBytes(22500).toString('base64') }, ...overrides })

// Posts until a write is refused; returns that answer.
async function fill (lrs) {
  for (let i = 0; i < 100; i++) {
    const res = await lrs.client('/statements', { method: 'POST', body: [big(), big()] })
    if (res.status !== 200) return res
  }
  throw new Error('the store never filled up')
}

test('a full store: 507 LRS_ERR_STORE_FULL with nothing stored, readiness down with reason "store full", one error line per episode', { skip }, async () => {
  const logLines = []
  const lrs = await startLrs({ LRS_LOG_LEVEL: 'warn' }, { hooks: { maxPageCount: 60, resumeFreeBytes: Number.MAX_SAFE_INTEGER }, logLines })
  const full = await fill(lrs)
  assert.equal(full.status, 507)
  assert.equal(full.json.code, 'LRS_ERR_STORE_FULL')
  assert.match(full.json.message, /store is full/)
  assert.ok(full.headers.get('retry-after'))
  const id = crypto.randomUUID()
  // as large as the refused request: one statement alone may still fit
  assert.equal((await lrs.client('/statements', { method: 'POST', body: [big({ id }), big()] })).status, 507)
  assert.equal((await lrs.client(`/statements?statementId=${id}`)).status, 404, 'nothing of a refused request is stored')

  const ready = await lrs.http('/health/ready')
  assert.equal(ready.status, 503)
  assert.deepEqual(ready.json, { status: 'down', reason: 'store full' })
  const errorLines = logLines.filter((l) => l.level === 50 && /store is full/.test(l.msg))
  assert.equal(errorLines.length, 1, 'one error line for the episode, however many writes it refused')
  assert.equal(errorLines[0].dataDir, lrs.config.dataDir)
  assert.equal(typeof errorLines[0].freeBytes, 'number')
})

test('the episode ends once the disk has space again; the store then takes writes', { skip }, async () => {
  const logLines = []
  // any free space counts as enough: the readiness check ends the episode
  const lrs = await startLrs({ LRS_LOG_LEVEL: 'warn' }, { hooks: { maxPageCount: 60, resumeFreeBytes: 1 }, logLines })
  assert.equal((await fill(lrs)).status, 507)
  assert.equal((await lrs.http('/health/ready')).status, 200)
  assert.ok(logLines.some((l) => l.level === 40 && /has space again \(space was freed\)/.test(l.msg)))
  await lrs.close()
  const next = await startLrs({ LRS_DATA_DIR: lrs.config.dataDir }) // the cap gone: space freed
  const res = await next.client('/statements', { method: 'POST', body: [big()] })
  assert.equal(res.status, 200)
  assert.equal((await next.client(`/statements?statementId=${res.json[0]}`)).status, 200)
})
