'use strict'

// kill -9 while a deleted store is purged, and while a store's retention
// removes statements (write-ops.js, storePurgeSlice:
// slices over both files, the index file's part journaled): the next
// writer carries the purge on, nothing of the deleted store is left once
// it ends, every statement of the store beside it is still found by id and
// by its filters, and the indexes pass `lrs check` at every stop.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { freshStore, startLrs, ENGINE } = require('../helpers/lrs')
const { openDatabase } = require('../../src/storage/sqlite/open')
const { LEVELS } = require('../../src/storage/sqlite/schema')
const { checkSqliteStore } = require('../../src/storage/sqlite/check')
const { withIndexCommitLost } = require('../helpers/sqlite-files')

const HELPER = path.join(__dirname, '../helpers/purging-writer.js')

// Runs the helper; resolves with its output lines, and whether it was
// killed (`killAfterMs` after it said "open"; none: it runs to its end).
function runHelper (dataDir, args, { killAfterMs } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HELPER, ...args], { env: { ...process.env, LRS_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (d) => {
      out += d
      if (killAfterMs !== undefined && /^open$/m.test(out)) {
        setTimeout(() => child.kill('SIGKILL'), killAfterMs)
        killAfterMs = undefined
      }
    })
    child.stderr.on('data', (d) => { err += d })
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL' && code !== 0) reject(new Error(`the helper failed (${code}): ${err}`))
      else resolve({ lines: out.split('\n').filter(Boolean), killed: signal === 'SIGKILL' })
    })
  })
}

// What is left of store `number` in the files: statements, index rows, counts.
function leftOf (dataDir, number) {
  const db = openDatabase(dataDir, { readonly: true })
  try {
    const suffix = Buffer.alloc(4)
    suffix.writeUInt32BE(number)
    const count = (sql, ...params) => db.prepare(sql).pluck().get(...params)
    return {
      statements: count('SELECT count(*) FROM statements WHERE store = ?', number),
      termRows: LEVELS.reduce((n, level) => n + count(`SELECT count(*) FROM ${level.terms} WHERE term < 0 AND (-term) % 2048 = ?`, number), 0),
      idRows: LEVELS.reduce((n, level) => n + count(`SELECT count(*) FROM ${level.ids} WHERE length(id) = 20 AND substr(id, 17) = ?`, suffix), 0),
      counts: count('SELECT count(*) FROM hourly_terms WHERE term < 0 AND (-term) % 2048 = ?', number)
    }
  } finally {
    db.close()
  }
}

test('kill -9 during a store\'s purge loses nothing of the other store, and the next writer finishes it', { skip: ENGINE !== 'sqlite' && 'the sqlite engine' }, async () => {
  const { LRS_DATA_DIR: dataDir } = freshStore()
  const kept = (await runHelper(dataDir, ['fill', '15000', '2000'])).lines
  assert.equal(kept.length, 2000)
  const GONE = 1 // the first store made
  assert.ok(leftOf(dataDir, GONE).statements > 0, 'the purge is not over before the kills')

  let kills = 0
  for (const ms of [5, 40, 15, 80, 25, 120, 10, 60]) {
    const run = await runHelper(dataDir, ['run'], { killAfterMs: ms })
    assert.deepEqual(checkSqliteStore({ dataDir }).problems, [], `after a kill at ${ms} ms`)
    if (!run.killed) break
    kills++
  }
  assert.ok(kills >= 2, `killed during the purge ${kills} times`)
  const last = await runHelper(dataDir, ['run'])
  assert.ok(last.lines.includes('purged'))
  assert.deepEqual(leftOf(dataDir, GONE), { statements: 0, termRows: 0, idRows: 0, counts: 0 })
  assert.deepEqual(checkSqliteStore({ dataDir }).problems, [])

  // the other store: every statement by id, and by its filters
  const lrs = await startLrs({ LRS_DATA_DIR: dataDir, MONGODB_URI: '', LRS_STATEMENTS_MAX_LIMIT: '10000' })
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: 'kept' } })
  const auth = [made.json.key, made.json.secret]
  for (const id of kept.filter((_, k) => k % 40 === 0)) assert.equal((await lrs.client(`/statements?statementId=${id}`, { auth })).status, 200, id)
  const byVerb = []
  for (const v of [0, 1, 2]) {
    const res = await lrs.client(`/statements?verb=${encodeURIComponent(`http://example.com/verbs/v${v}`)}&limit=10000`, { auth })
    byVerb.push(...res.json.statements.map((s) => s.id))
  }
  assert.deepEqual(byVerb.sort(), [...kept].sort())
  assert.equal((await lrs.http('/admin/stores/kept')).json.statements, 2000)
  assert.equal((await lrs.http('/admin/stores/default')).json.statements, 0, 'the deleted store\'s statements are not counted as the default store\'s')
})

test('a purge slice whose changes to the index file were lost is applied again from the journal when the writer starts', { skip: ENGINE !== 'sqlite' && 'the sqlite engine' }, async () => {
  const { LRS_DATA_DIR: dataDir } = freshStore()
  await runHelper(dataDir, ['fill', '400', '100'])
  const GONE = 1
  const slice = withIndexCommitLost(dataDir, (ops) => ops.storePurgeSlice({ number: GONE, limit: 100000, graceMs: 0 }, {}))
  assert.equal(slice.statements, 400)
  const lost = leftOf(dataDir, GONE)
  assert.equal(lost.statements, 0)
  assert.ok(lost.termRows > 0, 'the index file has the term rows of the statements gone')

  const run = await runHelper(dataDir, ['run'])
  assert.ok(run.lines.includes('purged'))
  assert.deepEqual(leftOf(dataDir, GONE), { statements: 0, termRows: 0, idRows: 0, counts: 0 })
  assert.deepEqual(checkSqliteStore({ dataDir }).problems, [])
})

test('kill -9 during a store\'s retention removes nothing it keeps, and the next run finishes it', { skip: ENGINE !== 'sqlite' && 'the sqlite engine' }, async () => {
  const { LRS_DATA_DIR: dataDir } = freshStore()
  const fresh = (await runHelper(dataDir, ['age', '3000', '1000'])).lines
  assert.equal(fresh.length, 1000)
  let kills = 0
  for (const ms of [5, 60, 20, 120, 40, 200]) {
    const run = await runHelper(dataDir, ['retain', '1000'], { killAfterMs: ms })
    assert.deepEqual(checkSqliteStore({ dataDir }).problems, [], `after a kill at ${ms} ms`)
    if (!run.killed) break
    kills++
  }
  assert.ok(kills >= 2, `killed during the retention ${kills} times`)
  assert.ok((await runHelper(dataDir, ['retain', '1000'])).lines.includes('retained'))
  assert.deepEqual(checkSqliteStore({ dataDir }).problems, [])

  const lrs = await startLrs({ LRS_DATA_DIR: dataDir, MONGODB_URI: '', LRS_STATEMENTS_MAX_LIMIT: '10000' })
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: 'aging' } })
  const auth = [made.json.key, made.json.secret]
  const byVerb = []
  for (const v of [0, 1, 2]) {
    const res = await lrs.client(`/statements?verb=${encodeURIComponent(`http://example.com/verbs/v${v}`)}&limit=10000`, { auth })
    byVerb.push(...res.json.statements.map((s) => s.id))
  }
  assert.deepEqual(byVerb.sort(), [...fresh].sort(), 'exactly the statements stored now are left: the old ones and the voiding statements of old ones went')
  for (const id of fresh.filter((_, k) => k % 50 === 0)) assert.equal((await lrs.client(`/statements?statementId=${id}`, { auth })).status, 200)
})
