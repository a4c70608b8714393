'use strict'

// kill -9 while index merges run (schema.js: five levels, a merge round
// moving rows level to level in slices, each a transaction): every
// acknowledged statement is still found by id and by each of its filters,
// the indexes pass `lrs check`, and the next writer carries the merges on.
// The writer process is killed at moments the test does not choose, five
// times over one store.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { freshStore, startLrs, ENGINE } = require('../helpers/lrs')
const { openDatabase } = require('../../src/storage/sqlite/open')
const { idToBlob } = require('../../src/storage/sqlite/ids')
const { SEQ_OF_ID, LEVELS } = require('../../src/storage/sqlite/schema')
const { checkSqliteStore } = require('../../src/storage/sqlite/check')

const WRITING = path.join(__dirname, '../helpers/merging-writer.js')

// Runs the merging writer until it has acknowledged `atLeast` statements
// and `ms` more have passed, kills it; returns the ids it acknowledged.
function writeThenKill (dataDir, { atLeast, ms }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRITING], { env: { ...process.env, LRS_DATA_DIR: dataDir }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    let timer = null
    child.stdout.on('data', (d) => {
      out += d
      if (!timer && out.split('\n').length > atLeast) timer = setTimeout(() => child.kill('SIGKILL'), ms)
    })
    child.stderr.on('data', (d) => { err += d })
    child.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the writer exited by itself (${code}): ${err}`))
      // a line cut by the kill is an id not acknowledged in full
      else resolve(out.split('\n').filter((line) => line.length === 36))
    })
  })
}

test('kill -9 during index merges at every level loses no acknowledged statement and leaves every index answering', { skip: ENGINE !== 'sqlite' && 'the sqlite engine' }, async () => {
  const { LRS_DATA_DIR: dataDir } = freshStore()
  const acked = []
  for (const [i, ms] of [37, 151, 89, 263, 11].entries()) acked.push(...await writeThenKill(dataDir, { atLeast: 200 * (i + 1), ms }))

  const db = openDatabase(dataDir, { readonly: true })
  const seqOf = db.prepare(SEQ_OF_ID).pluck()
  assert.deepEqual(acked.filter((id) => seqOf.get({ id: idToBlob(id) }) === undefined), [], 'every acknowledged id is stored')
  // Rows reach the big tables only through every level before them (a
  // level between may be empty at a given moment: its rows moved on).
  const big = LEVELS[LEVELS.length - 1].ids
  assert.ok(db.prepare(`SELECT count(*) FROM ${big}`).pluck().get() > 0, `merges reached ${big}`)
  db.close()
  assert.deepEqual(checkSqliteStore({ dataDir }).problems, [])

  // through the LRS: by id, and the filters of what was stored find each statement once
  const lrs = await startLrs({ LRS_DATA_DIR: dataDir, MONGODB_URI: '', LRS_STATEMENTS_MAX_LIMIT: '10000' })
  for (const id of acked.filter((_, k) => k % 50 === 0)) assert.equal((await lrs.client(`/statements?statementId=${id}`)).status, 200, id)
  const all = []
  for (let n = 0; n < 5; n++) {
    const res = await lrs.client(`/statements?registration=00000000-0000-4000-8000-00000000000${n}&limit=10000`)
    assert.equal(res.status, 200)
    all.push(...res.json.statements.map((s) => s.id))
  }
  assert.equal(new Set(all).size, all.length, 'no statement is returned twice')
  const stored = new Set(all)
  assert.deepEqual(acked.filter((id) => !stored.has(id)), [], 'every acknowledged statement is found by its registration')
  await lrs.close()

  // the next writer carries the merges on
  acked.push(...await writeThenKill(dataDir, { atLeast: 400, ms: 500 }))
  assert.deepEqual(checkSqliteStore({ dataDir }).problems, [])
})
