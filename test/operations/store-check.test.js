'use strict'

// `lrs check`: a sound store checks clean (0 and a one-line summary), on a
// stopped store and beside a running LRS; on SQLite, 64 KiB of random
// bytes written in the middle of the file, a term index row or an id row
// deleted, and a row left behind are each reported in words, exit code 1.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const Database = require('better-sqlite3')
const { startLrs, ENGINE } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { runLrs } = require('../helpers/cli')

const SQLITE_ONLY = ENGINE === 'mongodb' && 'damages the SQLite file and its index tables; MongoDB has neither'
const STATEMENTS = 400

// A stopped store with STATEMENTS statements: its env and its SQLite file.
async function filledStore () {
  const lrs = await startLrs()
  for (let i = 0; i < STATEMENTS; i += 100) {
    const batch = Array.from({ length: 100 }, () => statement({ context: { registration: crypto.randomUUID() } }))
    assert.equal((await lrs.client('/statements', { method: 'POST', body: batch })).status, 200)
  }
  return lrs
}

// Writes to the file of a stopped SQLite store (tests only).
function withFile (storeEnv, fn) {
  const db = new Database(path.join(storeEnv.LRS_DATA_DIR, 'lrs.sqlite'))
  try { return fn(db) } finally { db.close() }
}

test('a sound store checks clean, beside a running LRS and stopped: exit 0 and one line', async () => {
  const lrs = await filledStore()
  const live = await runLrs(['check'], lrs.storeEnv)
  assert.equal(live.code, 0, live.stdout + live.stderr)
  assert.equal(live.stdout.split('\n').length, 2, live.stdout) // one line and its newline
  assert.match(live.stdout, new RegExp(`^ok: .*${ENGINE === 'mongodb' ? 'statements' : `${STATEMENTS} statements`}`))
  await lrs.close()
  const stopped = await runLrs(['check', ...(ENGINE === 'sqlite' ? ['--quick'] : [])], lrs.storeEnv)
  assert.equal(stopped.code, 0, stopped.stdout + stopped.stderr)
  assert.match(stopped.stdout, /^ok: /)
})

test('64 KiB of random bytes written in the middle of the SQLite file are reported, exit 1', { skip: SQLITE_ONLY }, async () => {
  const lrs = await filledStore()
  await lrs.close()
  const file = path.join(lrs.storeEnv.LRS_DATA_DIR, 'lrs.sqlite')
  const { size } = fs.statSync(file)
  assert.ok(size > 4 * 65536, `the file has ${size} bytes`)
  assert.ok(!fs.existsSync(file + '-wal') || fs.statSync(file + '-wal').size === 0, 'the WAL was not checkpointed into the file')
  const fd = fs.openSync(file, 'r+')
  fs.writeSync(fd, crypto.randomBytes(65536), 0, 65536, Math.floor(size / 2 / 65536) * 65536)
  fs.closeSync(fd)
  const res = await runLrs(['check'], lrs.storeEnv)
  assert.equal(res.code, 1, res.stdout + res.stderr)
  assert.match(res.stdout, /^problem: the database file is damaged: SQLite.s integrity_check[: ]/m)
  assert.match(res.stdout, /^\d+ problems? found in /m)
  assert.equal(res.stderr, '')
})

test('a deleted term row, a deleted id row and a term row of no statement are each reported in words, exit 1', { skip: SQLITE_ONLY }, async () => {
  const lrs = await filledStore()
  await lrs.close()
  const verb = 'v:http://adlnet.gov/expapi/verbs/completed'
  const { statementId } = withFile(lrs.storeEnv, (db) => {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE name LIKE '%_terms' OR name LIKE '%_ids'").pluck().all()
    const termsTable = tables.find((t) => t.endsWith('_terms') && db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() > 0)
    const idsTable = tables.find((t) => t.endsWith('_ids') && db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() > 0)
    const verbId = db.prepare('SELECT id FROM terms WHERE term = ?').pluck().get(verb)
    const row = db.prepare(`SELECT term, seq FROM ${termsTable} WHERE term = ? LIMIT 1`).get(verbId)
    assert.equal(db.prepare(`DELETE FROM ${termsTable} WHERE term = ? AND seq = ?`).run(row.term, row.seq).changes, 1)
    const idRow = db.prepare(`SELECT id, seq FROM ${idsTable} ORDER BY seq DESC LIMIT 1`).get()
    assert.equal(db.prepare(`DELETE FROM ${idsTable} WHERE id = ?`).run(idRow.id).changes, 1)
    db.prepare(`INSERT INTO ${termsTable} (term, seq) VALUES (?, ?)`).run(verbId, 12345)
    return { statementId: idRow.id.toString('hex') }
  })
  const res = await runLrs(['check'], lrs.storeEnv)
  assert.equal(res.code, 1, res.stdout + res.stderr)
  assert.match(res.stdout, new RegExp(`^problem: 1 statement term has no row in the term index .*queries by those .* miss those statements.*term \\d+ "${verb}"`, 'm'))
  assert.match(res.stdout, /^problem: 1 statement has no row in the id index .*statementId= answers 404/m)
  assert.ok(res.stdout.replace(/-/g, '').includes(statementId), 'the statement is named')
  assert.match(res.stdout, /^problem: 1 row of \w+_terms belongs to no statement that has that term.*at seq 12345/m)
  assert.match(res.stdout, /^problem: the id index has 399 rows for 400 statements/m)
  assert.match(res.stdout, /^4 problems found in /m) // the term rows' count is right: one missing, one too many
})

test('a packed statement body that no longer unpacks is reported with its statement, exit 1', { skip: SQLITE_ONLY }, async () => {
  const lrs = await filledStore()
  await lrs.close()
  const id = withFile(lrs.storeEnv, (db) => {
    const row = db.prepare("SELECT seq, id, body FROM statements WHERE typeof(body) = 'blob' LIMIT 1").get()
    assert.ok(row, 'bodies are stored packed')
    const body = Buffer.from(row.body)
    body.fill(0x5a, 1, body.length) // the format byte kept, the deflated bytes lost
    db.prepare('UPDATE statements SET body = ? WHERE seq = ?').run(body, row.seq)
    return row.id.toString('hex')
  })
  const res = await runLrs(['check'], lrs.storeEnv)
  assert.equal(res.code, 1, res.stdout + res.stderr)
  assert.match(res.stdout, /^problem: 1 statement body does not unpack \(reading it fails\): e\.g\. statement [0-9a-f-]+ \(seq \d+\)/m)
  assert.ok(res.stdout.replace(/-/g, '').includes(id), 'the statement is named')
  assert.match(res.stdout, /^1 problem found in /m)
})
