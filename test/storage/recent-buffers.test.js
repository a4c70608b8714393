'use strict'

// SQLite: the recent index level is two buffers (schema.js,
// RECENT_BUFFERS). Once one is full the other takes the new rows, and the
// full one is copied into the middle level slice by slice and then
// emptied; until then its rows are in both. What a user sees counts each
// statement once meanwhile, and a round cut short goes on from where it was.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, ENGINE } = require('../helpers/lrs')
const { statement, allIds } = require('../helpers/statements')
const { openDatabase } = require('../../src/storage/sqlite/open')
const { indexMerges } = require('../../src/storage/sqlite/index-merges')
const { checkSqliteStore } = require('../../src/storage/sqlite/check')

const skip = ENGINE !== 'sqlite' && 'SQLite files only'
const q = (value) => encodeURIComponent(JSON.stringify(value))


// Runs `slices` slices of a round of the recent level, each in a
// transaction of its own, as the writer does.
function copySlices (dataDir, slices) {
  const db = openDatabase(dataDir)
  try {
    const { upkeep } = indexMerges(db)
    const round = upkeep.startRound(0, 8, upkeep.statementsIn(0))
    for (let i = 0; i < slices; i++) {
      db.exec('BEGIN IMMEDIATE')
      round.after = upkeep.mergeSlice(round)
      db.exec('COMMIT')
    }
    const count = (table) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get()
    return { active: db.prepare('SELECT active FROM index_recent').pluck().get(), recent: count('recent_ids'), recent2: count('recent2_ids'), middle: count('middle_ids') }
  } finally {
    db.close()
  }
}

test('while a full recent buffer is copied into the middle level, statements are found once by every filter and by the erasure preview, and new ones go to the other buffer', { skip }, async () => {
  const learner = { objectType: 'Agent', mbox: `mailto:buffers-${crypto.randomUUID()}@example.com` }
  const activity = { objectType: 'Activity', id: `http://example.com/buffers/${crypto.randomUUID()}` }
  const first = await startLrs()
  const { LRS_DATA_DIR } = first.storeEnv
  const mine = []
  for (let i = 0; i < 8; i++) {
    const batch = Array.from({ length: 8 }, (_, k) => statement({ id: crypto.randomUUID(), ...(k % 2 ? { actor: learner } : {}), ...(k % 4 === 0 ? { object: activity } : {}) }))
    assert.equal((await first.client('/statements', { method: 'POST', body: batch })).status, 200)
    mine.push(...batch)
  }
  await first.close({ graceMs: 0 })

  // the first slices of a round, then a stop (as a kill -9 of the writer would leave it)
  const cut = copySlices(LRS_DATA_DIR, 3)
  assert.equal(cut.active, 1, 'the other buffer takes new rows')
  assert.ok(cut.recent >= 64 && cut.middle > 0 && cut.middle < cut.recent, `copied in part, and still in the full buffer: ${JSON.stringify(cut)}`)
  assert.deepEqual(checkSqliteStore({ dataDir: LRS_DATA_DIR }).problems, [])

  const lrs = await startLrs({ LRS_DATA_DIR })
  const newest = (matches) => mine.filter(matches).map((s) => s.id).reverse()
  assert.deepEqual(await allIds(lrs, `agent=${q(learner)}`), newest((s) => s.actor.mbox === learner.mbox))
  assert.deepEqual(await allIds(lrs, `activity=${encodeURIComponent(activity.id)}`), newest((s) => s.object.id === activity.id))
  assert.deepEqual(await allIds(lrs, `agent=${q(learner)}&activity=${encodeURIComponent(activity.id)}`), newest((s) => s.actor.mbox === learner.mbox && s.object.id === activity.id))
  const preview = await lrs.http(`/admin/agents?agent=${q(learner)}`)
  assert.equal(preview.status, 200, preview.text)
  assert.equal(preview.json.wouldRemove.statements, 32)
  for (const s of mine.slice(0, 10)) assert.equal((await lrs.client(`/statements?statementId=${s.id}`)).json.id, s.id)

  // a new statement goes to the other buffer and is found with the rest
  const added = statement({ id: crypto.randomUUID(), actor: learner })
  assert.equal((await lrs.client('/statements', { method: 'POST', body: added })).status, 200)
  assert.deepEqual(await allIds(lrs, `agent=${q(learner)}`), [added.id, ...newest((s) => s.actor.mbox === learner.mbox)])
  // a taken id is still taken, wherever its rows are
  assert.equal((await lrs.client('/statements', { method: 'POST', body: { ...mine[1], verb: { id: 'http://example.com/verbs/other' } } })).status, 409)
  await lrs.close({ graceMs: 0 })

  // the round goes on from where it was cut: the full buffer ends empty, and nothing is twice in the middle level
  const done = copySlices(LRS_DATA_DIR, 20)
  assert.equal(done.recent, 0, 'the copied buffer is emptied')
  assert.equal(done.recent2, 1, 'the new statement is in the other buffer')
  assert.equal(done.middle, 64)
  assert.deepEqual(checkSqliteStore({ dataDir: LRS_DATA_DIR }).problems, [])
})
