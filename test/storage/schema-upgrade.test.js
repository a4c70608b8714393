'use strict'

// A SQLite file made by schema 1 (agents in clear in the terms dictionary,
// documents without their agent, ids in a UNIQUE column of statements) is
// upgraded at start: its statements are still found by agent and by id,
// ids stay unique, and no agent identifier is left in the dictionary.

const crypto = require('node:crypto')
const { spawn } = require('node:child_process')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const zlib = require('node:zlib')
const { test } = require('node:test')
const assert = require('node:assert/strict')
const Database = require('better-sqlite3')
const { startLrs, ENGINE } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { databaseFile, openDatabase } = require('../../src/storage/sqlite/open')
const { asOneFile, asSchema9 } = require('../helpers/sqlite-files')
const { hashedAgent } = require('../../src/storage/sqlite/terms')
const { agentKey } = require('../../src/resources/agents/agent-keys')
const { checkSqliteStore } = require('../../src/storage/sqlite/check')

// A store that `body` was posted to, then taken back to an older schema by
// `downgrade(db)`: the settings of an LRS on it.
async function olderStore (body, downgrade) {
  const first = await startLrs()
  assert.equal((await first.client('/statements', { method: 'POST', body })).status, 200)
  const env = { ...first.storeEnv }
  await first.close({ graceMs: 0 })
  const db = asOneFile(env.LRS_DATA_DIR)
  downgrade(db)
  db.close()
  return env
}

test('a schema 1 file is upgraded: agent terms hashed, documents get their agent column, ids move to their own table', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async () => {
  const first = await startLrs()
  const s = statement({ context: { instructor: { mbox: 'mailto:teacher@example.com' } } })
  assert.equal((await first.client('/statements', { method: 'POST', body: s })).status, 200)
  const env = { ...first.storeEnv }
  await first.close({ graceMs: 0 })

  // Back to what schema 1 wrote.
  const db = asOneFile(env.LRS_DATA_DIR)
  const keys = [agentKey(s.actor), 'mbox:mailto:teacher@example.com']
  const unhash = db.prepare('UPDATE terms SET term = ? WHERE term = ?')
  for (const key of keys) for (const kind of ['a', 'r']) unhash.run(`${kind}:${key}`, `${kind}:${hashedAgent(key)}`)
  db.exec('DROP INDEX documents_agent; ALTER TABLE documents DROP COLUMN agent; DROP INDEX statements_stored_ms; ALTER TABLE statements DROP COLUMN stored_ms')
  // ids in a UNIQUE column of statements, every term row in statement_terms
  const ddl = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'statements'").pluck().get()
  db.exec(`INSERT INTO statement_terms SELECT * FROM recent_terms; DROP TABLE recent_terms; DROP TABLE recent_ids; DROP TABLE statement_ids;
    DROP TABLE middle_terms; DROP TABLE middle_ids;
    ALTER TABLE statements RENAME TO old; ${ddl.replace('id BLOB NOT NULL', 'id BLOB NOT NULL UNIQUE')}; INSERT INTO statements SELECT * FROM old; DROP TABLE old;
    CREATE INDEX statements_ref ON statements (ref) WHERE ref IS NOT NULL`)
  db.pragma('user_version = 1')
  assert.equal(db.prepare("SELECT count(*) FROM terms WHERE term LIKE '%mailto:%'").pluck().get(), 2)
  db.close()

  const upgraded = await startLrs(env)
  const q = (v) => encodeURIComponent(JSON.stringify(v))
  const id = (await upgraded.client(`/statements?agent=${q(s.actor)}`)).json.statements[0].id
  assert.equal((await upgraded.client(`/statements?statementId=${id}`)).json.id, id)
  assert.equal((await upgraded.client('/statements', { method: 'POST', body: { ...s, id, verb: { id: 'http://example.com/other' } } })).status, 409)
  assert.equal((await upgraded.client('/statements', { method: 'POST', body: statement() })).status, 200)
  assert.equal((await upgraded.client(`/statements?agent=${q(s.actor)}`)).json.statements.length, 1)
  assert.equal((await upgraded.client(`/statements?agent=${q({ mbox: 'mailto:teacher@example.com' })}&related_agents=true`)).json.statements.length, 1)
  const check = openDatabase(env.LRS_DATA_DIR, { readonly: true })
  assert.equal(check.prepare("SELECT count(*) FROM terms WHERE term LIKE '%mailto:%'").pluck().get(), 0)
  assert.equal(check.pragma('user_version', { simple: true }), 15)
  assert.ok(check.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('documents').includes('agent'))
  assert.ok(check.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('statements').includes('stored_ms'))
  assert.doesNotMatch(check.prepare("SELECT sql FROM sqlite_master WHERE name = 'statements'").pluck().get(), /UNIQUE/)
  assert.equal(check.prepare('SELECT count(*) FROM statement_ids').pluck().get(), 1) // the statement the file had
  check.close()
})

test('a schema 3 file is upgraded: the middle index tables and stored_ms are added and every statement stays findable', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async () => {
  const s = statement()
  const env = await olderStore(s, (db) => {
    db.exec('DROP TABLE middle_terms; DROP TABLE middle_ids; DROP INDEX statements_stored_ms; ALTER TABLE statements DROP COLUMN stored_ms')
    db.pragma('user_version = 3')
  })

  const upgraded = await startLrs(env)
  const q = (v) => encodeURIComponent(JSON.stringify(v))
  const found = (await upgraded.client(`/statements?agent=${q(s.actor)}`)).json.statements
  assert.equal(found.length, 1)
  assert.equal((await upgraded.client(`/statements?statementId=${found[0].id}`)).json.id, found[0].id)
  const check = openDatabase(env.LRS_DATA_DIR, { readonly: true })
  assert.equal(check.pragma('user_version', { simple: true }), 15)
  assert.equal(check.prepare("SELECT count(*) FROM idx.sqlite_master WHERE name IN ('middle_terms', 'middle_ids')").pluck().get(), 2)
  assert.equal(check.prepare("SELECT count(*) FROM main.sqlite_master WHERE name IN ('middle_terms', 'middle_ids', 'statements_stored_ms')").pluck().get(), 1)
  check.close()
})

test('a schema 5 file is upgraded: the hourly counters count the statements it has', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async () => {
  const verb = { id: 'http://example.com/verbs/upgraded' }
  const env = await olderStore([statement({ verb }), statement({ verb })], (db) => {
    db.exec('DROP TABLE hourly_totals; DROP TABLE hourly_terms')
    db.pragma('user_version = 5')
  })

  const upgraded = await startLrs(env)
  assert.equal((await upgraded.client('/statements', { method: 'POST', body: statement({ verb }) })).status, 200)
  const overview = (await upgraded.http('/admin/overview')).json
  assert.equal(overview.total, 3)
  assert.deepEqual(overview.verbs, [{ verb: verb.id, count: 3, display: null }]) // no statement gave it a display
  assert.deepEqual(overview.credentials, [{ key: upgraded.config.adminUser, count: 3 }])
})

// test/fixtures/schema-6-store.*: a store written by the LRS of 2026-11-25
// (schema 6: bodies as text, three index levels; make-schema-6-store.js).
test('a store written by schema 6 opens, is upgraded in place and answers as before; new statements are stored packed', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async () => {
  const fixture = require('../fixtures/schema-6-store.json')
  const dataDir = fs.mkdtempSync(path.join(process.env.LRS_TEST_DATA_ROOT || os.tmpdir(), 'lrs-schema6-'))
  fs.writeFileSync(databaseFile(dataDir), zlib.gunzipSync(fs.readFileSync(path.join(__dirname, '../fixtures/schema-6-store.sqlite.gz'))))
  const lrs = await startLrs({ LRS_DATA_DIR: dataDir, MONGODB_URI: '' })
  const q = (v) => encodeURIComponent(JSON.stringify(v))
  const ids = async (query) => (await lrs.client(`/statements?limit=100&${query}`)).json.statements.map((s) => s.id)
  const kept = fixture.statements.filter((s) => s.id !== fixture.voided)
  // Newest first, those that match and the voiding statement when what it
  // voided matches (Communication 2.1.3: statements that target them).
  const target = fixture.statements.find((s) => s.id === fixture.voided)
  const expected = (matches) => [...(matches(target) ? [fixture.voiding.id] : []), ...kept.filter(matches).map((s) => s.id).reverse()]

  for (const s of kept) {
    const got = (await lrs.client(`/statements?statementId=${s.id}`)).json
    assert.deepEqual({ actor: got.actor, verb: got.verb, object: got.object, result: got.result, timestamp: got.timestamp }, { actor: s.actor, verb: s.verb, object: s.object, result: s.result, timestamp: s.timestamp })
  }
  assert.equal((await lrs.client(`/statements?statementId=${fixture.voided}`)).status, 404)
  assert.equal((await lrs.client(`/statements?voidedStatementId=${fixture.voided}`)).json.id, fixture.voided)
  const actor = fixture.statements[0].actor
  assert.deepEqual(await ids(`agent=${q(actor)}`), expected((s) => s.actor.mbox === actor.mbox))
  assert.deepEqual(await ids(`verb=${encodeURIComponent(kept[1].verb.id)}`), expected((s) => s.verb.id === kept[1].verb.id))
  assert.deepEqual(await ids(`activity=${encodeURIComponent(kept[2].object.id)}`), expected((s) => s.object.id === kept[2].object.id))
  assert.deepEqual(await ids(`registration=${kept[0].context.registration}`), expected((s) => s.context.registration === kept[0].context.registration))
  const { activityId, agent, stateId, content } = fixture.stateOf
  assert.deepEqual((await lrs.client(`/activities/state?activityId=${encodeURIComponent(activityId)}&agent=${q(agent)}&stateId=${stateId}`)).json, content)

  // taken ids are still taken; new statements are stored and found with the old
  assert.equal((await lrs.client('/statements', { method: 'POST', body: { ...kept[0], verb: { id: 'http://example.com/other' } } })).status, 409)
  const added = statement({ id: crypto.randomUUID(), actor, verb: kept.find((s) => s.actor.mbox === actor.mbox).verb })
  assert.equal((await lrs.client('/statements', { method: 'POST', body: added })).status, 200)
  assert.deepEqual((await ids(`agent=${q(actor)}`))[0], added.id)
  // a verb checked on the agent's rows: the new row carries it, the old rows (NULL) are looked up as before
  const sameVerb = (s) => s.actor.mbox === actor.mbox && s.verb.id === added.verb.id
  assert.deepEqual(await ids(`agent=${q(actor)}&verb=${encodeURIComponent(added.verb.id)}`), [added.id, ...expected(sameVerb)])
  assert.ok(expected(sameVerb).length > 0, 'the fixture has old statements of that agent and verb')
  // the reports' rollups (schema 15) count what the store held before them, voided ones aside
  const perVerb = (await lrs.http('/admin/reports/run', { method: 'POST', body: { groupBy: ['verb'], measures: ['statements'] } })).json
  assert.equal(perVerb.source, 'rollups')
  const counted = [...kept, fixture.voiding, added]
  const expectedVerbs = new Map()
  for (const s of counted) {
    const e = expectedVerbs.get(s.verb.id) || { n: 0 }
    e.n++
    expectedVerbs.set(s.verb.id, e)
  }
  assert.deepEqual(Object.fromEntries(perVerb.rows.map(([verb, n]) => [verb, n])), Object.fromEntries([...expectedVerbs].map(([verb, e]) => [verb, e.n])))
  await lrs.close({ graceMs: 0 })

  const db = new Database(databaseFile(dataDir), { readonly: true })
  assert.equal(db.pragma('user_version', { simple: true }), 15)
  const verbs = db.prepare('SELECT verb IS NULL AS unknown, count(*) AS n FROM recent_terms GROUP BY 1 ORDER BY 1').all()
  assert.deepEqual(verbs.map((v) => v.unknown), [0, 1], 'new rows carry their verb, rows of before have none')
  const kinds = db.prepare('SELECT typeof(body) AS kind, count(*) AS n FROM statements GROUP BY 1 ORDER BY 1').all()
  assert.deepEqual(kinds, [{ kind: 'blob', n: 1 }, { kind: 'text', n: fixture.statements.length + 1 }])
  db.close()
  const checked = checkSqliteStore({ dataDir })
  assert.deepEqual(checked.problems, [])
  fs.rmSync(dataDir, { recursive: true, force: true })
})

test('a store whose targeted statements are indexed by seq alone gets them indexed by store at its next start, and StatementRefs still match', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async () => {
  const verb = `http://example.com/verbs/${crypto.randomUUID()}`
  const target = statement({ id: crypto.randomUUID(), verb: { id: verb } })
  const referencing = statement({ id: crypto.randomUUID(), object: { objectType: 'StatementRef', id: target.id } })
  const first = await startLrs()
  assert.equal((await first.client('/statements', { method: 'POST', body: [target, referencing] })).status, 200)
  const env = { ...first.storeEnv }
  await first.close({ graceMs: 0 })
  const before = new Database(databaseFile(env.LRS_DATA_DIR))
  before.exec('DROP INDEX statements_referenced_by_store; CREATE INDEX statements_referenced ON statements (seq) WHERE referenced = 1')
  before.close()
  const lrs = await startLrs(env)
  const page = (await lrs.client(`/statements?verb=${encodeURIComponent(verb)}`)).json
  assert.deepEqual(page.statements.map((s) => s.id), [referencing.id, target.id])
  await lrs.close({ graceMs: 0 })
  const db = new Database(databaseFile(env.LRS_DATA_DIR), { readonly: true })
  const indexes = db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'statements_referenced%'").pluck().all()
  db.close()
  assert.deepEqual(indexes, ['statements_referenced_by_store'])
  fs.rmSync(env.LRS_DATA_DIR, { recursive: true, force: true })
})

test('a store written by schema 9 is upgraded: its term dictionary moves into levels, every term keeps its id, new terms take the next ids', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async () => {
  const first = await startLrs()
  const old = [statement({ id: crypto.randomUUID() }), statement({ id: crypto.randomUUID(), context: { registration: crypto.randomUUID() } })]
  assert.equal((await first.client('/statements', { method: 'POST', body: old })).status, 200)
  const env = { ...first.storeEnv }
  await first.close({ graceMs: 0 })
  const before = asSchema9(env.LRS_DATA_DIR)
  const terms = before.prepare('SELECT id, term FROM terms ORDER BY id').all()
  assert.equal(before.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'terms'").pluck().get(), 1, 'schema 9 indexed the strings')
  before.close()

  const upgraded = await startLrs(env)
  const q = (v) => encodeURIComponent(JSON.stringify(v))
  const ids = async (query) => (await upgraded.client(`/statements?${query}`)).json.statements.map((s) => s.id)
  assert.deepEqual(await ids(`registration=${old[1].context.registration}`), [old[1].id])
  // the old agent and activity, a new registration
  const added = statement({ id: crypto.randomUUID(), actor: old[0].actor, object: old[0].object, context: { registration: crypto.randomUUID() } })
  assert.equal((await upgraded.client('/statements', { method: 'POST', body: added })).status, 200)
  assert.deepEqual(await ids(`agent=${q(old[0].actor)}`), [added.id, old[0].id])
  assert.deepEqual(await ids(`activity=${encodeURIComponent(old[0].object.id)}`), [added.id, old[0].id])
  assert.deepEqual(await ids(`registration=${added.context.registration}`), [added.id])
  await upgraded.close({ graceMs: 0 })

  const after = openDatabase(env.LRS_DATA_DIR, { readonly: true })
  assert.equal(after.pragma('user_version', { simple: true }), 15)
  assert.equal(after.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'terms'").pluck().get(), 0, 'no index on the strings')
  const now = after.prepare('SELECT id, term FROM terms ORDER BY id').all()
  assert.deepEqual(now.slice(0, terms.length), terms, 'every term kept its id')
  assert.equal(now.length, terms.length + 1, 'one new term: the new registration')
  assert.equal(now.at(-1).id, terms.at(-1).id + 1)
  assert.equal(after.prepare('SELECT count(*) FROM idx.term_dict').pluck().get(), terms.length, 'the old terms in the big level')
  assert.equal(after.prepare('SELECT id FROM recent_dict WHERE key = term_key(?) UNION SELECT id FROM recent2_dict WHERE key = term_key(?)').pluck().get(now.at(-1).term, now.at(-1).term), now.at(-1).id, 'the new one in the recent level')
  after.close()
  assert.deepEqual(checkSqliteStore({ dataDir: env.LRS_DATA_DIR }).problems, [])
})

test('an upgrade to schema 10 whose index file part was lost (a stop between the two files\' commits) builds the dictionary again at the next start', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async () => {
  const first = await startLrs()
  const old = statement({ id: crypto.randomUUID(), context: { registration: crypto.randomUUID() } })
  assert.equal((await first.client('/statements', { method: 'POST', body: old })).status, 200)
  const env = { ...first.storeEnv }
  await first.close({ graceMs: 0 })
  asSchema9(env.LRS_DATA_DIR).close()
  const once = await startLrs(env)
  await once.close({ graceMs: 0 })
  // the database file upgraded, the index file as schema 9 left it
  const db = openDatabase(env.LRS_DATA_DIR)
  db.exec('DROP TABLE idx.middle_dict; DROP TABLE idx.level2_dict; DROP TABLE idx.level3_dict; DROP TABLE idx.term_dict; ALTER TABLE idx.index_copy DROP COLUMN copied_key')
  assert.equal(db.pragma('user_version', { simple: true }), 15)
  db.close()

  const again = await startLrs(env)
  assert.deepEqual((await again.client(`/statements?registration=${old.context.registration}`)).json.statements.map((s) => s.id), [old.id])
  const added = statement({ id: crypto.randomUUID(), actor: old.actor })
  assert.equal((await again.client('/statements', { method: 'POST', body: added })).status, 200)
  assert.deepEqual((await again.client(`/statements?agent=${encodeURIComponent(JSON.stringify(old.actor))}`)).json.statements.map((s) => s.id), [added.id, old.id])
  await again.close({ graceMs: 0 })
  assert.deepEqual(checkSqliteStore({ dataDir: env.LRS_DATA_DIR }).problems, [])
})

test('kill -9 of the writer process during the upgrade to schema 10 loses no statement and leaves every index answering', { skip: ENGINE !== 'sqlite' && 'SQLite files only' }, async (t) => {
  // Statements whose terms are mostly new (a learner and a registration of
  // their own each): a dictionary large enough that the upgrade lasts a
  // while, and the kills land inside it.
  const { scormStatement } = require('../../bench/statement-generator')
  const { toRecord } = require('../../src/resources/statements/statement-record')
  const first = await startLrs()
  const statements = Array.from({ length: 20000 }, (_, i) => ({ ...scormStatement(i, 'worst'), id: crypto.randomUUID() }))
  const authority = { objectType: 'Agent', account: { homePage: 'http://example.com', name: 'upgrade-test' } }
  for (let i = 0; i < statements.length; i += 1000) {
    const records = statements.slice(i, i + 1000).map((s) => toRecord(s, { authority, xapiVersion: '1.0.3' }))
    await first.storage.statements.storeBatch([records], { stored: new Date(), sameStatement: () => true })
  }
  const template = first.storeEnv.LRS_DATA_DIR
  await first.close({ graceMs: 0 })
  asSchema9(template).close()
  const sample = statements.filter((_, i) => i % 2001 === 0 || i === statements.length - 1)

  const killedDuring = []
  for (const delayMs of [0, 50, 150]) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-upgrade-kill-'))
    t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }))
    for (const name of fs.readdirSync(template).filter((n) => n.startsWith('lrs'))) fs.copyFileSync(path.join(template, name), path.join(dataDir, name))
    const child = spawn(process.execPath, [path.join(__dirname, '../../src/storage/sqlite/writer-process.js')], { env: { ...process.env, LRS_DATA_DIR: dataDir, LRS_LOG_LEVEL: 'info' }, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
    let out = ''
    const upgrading = new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => { out += d; if (out.includes('upgrading the SQLite store')) resolve() })
      child.once('exit', (code) => reject(new Error(`the writer exited (${code}) before its upgrade: ${out}`)))
    })
    await upgrading
    await new Promise((resolve) => setTimeout(resolve, delayMs))
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGKILL')
    await exited
    if (!out.includes('SQLite store upgraded')) killedDuring.push(delayMs)

    const lrs = await startLrs({ LRS_DATA_DIR: dataDir })
    const q = (v) => encodeURIComponent(JSON.stringify(v))
    const ids = async (query) => (await lrs.client(`/statements?${query}&limit=50`)).json.statements.map((s) => s.id)
    for (const s of sample) {
      assert.deepEqual(await ids(`agent=${q(s.actor)}`), [s.id], `by agent, killed ${delayMs} ms into the upgrade`)
      assert.ok((await ids(`registration=${s.context.registration}`)).includes(s.id), 'by registration')
      assert.equal((await lrs.client(`/statements?statementId=${s.id}`)).status, 200, 'by id')
    }
    // a new statement for an old learner: its terms found, the new ones added after them
    const added = { ...scormStatement(statements.length, 'worst'), id: crypto.randomUUID(), actor: sample[0].actor }
    assert.equal((await lrs.client('/statements', { method: 'POST', body: added })).status, 200)
    assert.deepEqual(await ids(`agent=${q(sample[0].actor)}`), [added.id, sample[0].id])
    await lrs.close({ graceMs: 0 })
    const db = openDatabase(dataDir, { readonly: true })
    assert.equal(db.pragma('user_version', { simple: true }), 15)
    assert.equal(db.prepare('SELECT count(*) FROM statements').pluck().get(), statements.length + 1)
    db.close()
    assert.deepEqual(checkSqliteStore({ dataDir }).problems, [])
  }
  t.diagnostic(`kills before the upgrade ended: ${killedDuring.map((ms) => `${ms} ms`).join(', ')} after it began`)
  assert.ok(killedDuring.length > 0, 'at least one kill landed before the upgrade ended')
})
