'use strict'

// Moving statements between stores: the NDJSON export (HTTP and
// `lrs export`) and `lrs import`, which keeps ids, `stored`,
// `authority` and voiding, is idempotent, resumes after an interruption
// and reports what it rejected.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { startLrs, freshStore, dropStoreDatabase, ENGINE } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { runLrs } = require('../helpers/cli')
const { loadConfig } = require('../../src/config')
const { createStatementValidator } = require('../../src/validation/statement-validator')
const { importFiles } = require('../../src/transfer/import-statements')
const { fileCheckpoints } = require('../../src/transfer/checkpoints')


function tempFile (name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-transfer-'))
  test.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return path.join(dir, name)
}

// Runs `lrs export` or `lrs import` against a store; resolves { code, stdout, stderr }.
function runCli (command, args, storeEnv, options) {
  return runLrs([command, ...args], storeEnv, options)
}

// A store of the given engine (the run's by default), removed after the
// test: its folder, and its database on MongoDB.
function newStore (engine = ENGINE) {
  const env = freshStore(engine)
  test.after(async () => {
    await dropStoreDatabase(env)
    fs.rmSync(env.LRS_DATA_DIR, { recursive: true, force: true })
  })
  return env
}

async function allStatements (lrs, extra = '') {
  const out = []
  let url = `/statements?limit=100&ascending=true${extra}`
  for (;;) {
    const page = await lrs.client(url)
    assert.equal(page.status, 200)
    out.push(...page.json.statements)
    if (!page.json.more) return out
    url = page.json.more.replace(/^\/xapi/, '')
  }
}

test('an export imported into an empty store gives the same statements: ids, stored, authority, voiding', async () => {
  const source = await startLrs()
  const batch = Array.from({ length: 30 }, () => statement())
  assert.equal((await source.client('/statements', { method: 'POST', body: batch })).status, 200)
  const v2 = statement({ id: crypto.randomUUID() })
  assert.equal((await source.client('/statements', { method: 'POST', body: v2, version: '2.0.0' })).status, 200)
  const target = batch[3]
  const stored = await source.client(`/statements?agent=${encodeURIComponent(JSON.stringify(target.actor))}`)
  const targetId = stored.json.statements[0].id
  assert.equal((await source.client('/statements', { method: 'POST', body: statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: targetId } }) })).status, 200)

  const exported = await source.http('/admin/statements/export')
  assert.equal(exported.status, 200)
  assert.match(exported.headers.get('content-type'), /^application\/x-ndjson/)
  const lines = exported.text.trim().split('\n').map((l) => JSON.parse(l))
  assert.equal(lines.length, 32) // the voided statement is exported too
  assert.ok(lines.every((s) => s.stored && s.authority && s.id))

  const file = tempFile('export.ndjson')
  fs.writeFileSync(file, exported.text)
  const store = newStore()
  const imported = await runCli('import', [file], store)
  assert.equal(imported.code, 0, imported.stderr + imported.stdout)
  assert.match(imported.stdout, /32 stored, 0 already stored, 0 rejected/)

  const copy = await startLrs({ ...store })
  const before = await allStatements(source)
  const after = await allStatements(copy)
  assert.deepEqual(after, before)
  assert.equal((await copy.client(`/statements?statementId=${targetId}`)).status, 404)
  assert.equal((await copy.client(`/statements?voidedStatementId=${targetId}`)).json.id, targetId)

  // idempotent: a second run changes nothing
  const again = await runCli('import', [file], store)
  assert.equal(again.code, 0)
  assert.match(again.stdout, /0 stored, 32 already stored, 0 rejected/)
  assert.deepEqual(await allStatements(copy), before)

  // the CLI export gives the same lines as the HTTP one (order aside)
  const cli = await runCli('export', [], source.storeEnv)
  assert.equal(cli.code, 0, cli.stderr)
  assert.deepEqual(cli.stdout.trim().split('\n').sort(), exported.text.trim().split('\n').sort())
})

// Statements in the shapes an export carries: 1.0.3 and 2.0, SubStatement,
// Group, result and extensions, a timestamp with an offset, a voided one.
async function populate (lrs) {
  const coach = { objectType: 'Agent', mbox: `mailto:coach-${crypto.randomUUID()}@example.com` }
  const batch = [
    ...Array.from({ length: 20 }, () => statement()),
    statement({ result: { score: { scaled: 0.5, raw: 5, min: 0, max: 10 }, success: true, duration: 'PT1M30.5S', extensions: { 'http://example.com/x': { nested: [1, 'two', null] } } }, timestamp: '2026-03-01T10:00:00.123+02:00' }),
    statement({ actor: { objectType: 'Group', name: 'team', member: [coach] }, object: { objectType: 'SubStatement', actor: coach, verb: { id: 'http://example.com/verbs/planned' }, object: { objectType: 'Activity', id: 'http://example.com/a' } } }),
    statement({ context: { registration: crypto.randomUUID(), language: 'fr-FR', contextActivities: { parent: [{ id: 'http://example.com/course' }] } } })
  ]
  assert.equal((await lrs.client('/statements', { method: 'POST', body: batch })).status, 200)
  const v2 = statement({ context: { contextAgents: [{ objectType: 'contextAgent', agent: coach, relevantTypes: ['http://example.com/types/coach'] }] } })
  assert.equal((await lrs.client('/statements', { method: 'POST', body: v2, version: '2.0.0' })).status, 200)
  const target = (await lrs.client(`/statements?agent=${encodeURIComponent(JSON.stringify(batch[0].actor))}`)).json.statements[0].id
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: target } }) })).status, 200)
  return batch.length + 2
}

const byId = (a, b) => (a.id < b.id ? -1 : 1)

// Only the mongodb run has a MongoDB (FerretDB) to move to and from; the
// SQLite engine is there in every run.
for (const [from, to] of [['sqlite', 'mongodb'], ['mongodb', 'sqlite']]) {
  test(`an export from ${from} imported into an empty ${to} store gives every statement back, stored and authority included`, { skip: ENGINE !== 'mongodb' && 'needs the mongodb run' }, async () => {
    const source = await startLrs(newStore(from))
    const count = await populate(source)
    const exported = await source.http('/admin/statements/export')
    assert.equal(exported.status, 200)
    const file = tempFile('export.ndjson')
    fs.writeFileSync(file, exported.text)

    const targetStore = newStore(to)
    const imported = await runCli('import', [file], targetStore)
    assert.equal(imported.code, 0, imported.stderr + imported.stdout)
    assert.match(imported.stdout, new RegExp(`${count} stored, 0 already stored, 0 rejected`))

    const target = await startLrs(targetStore)
    const [before, after] = [await allStatements(source), await allStatements(target)]
    assert.equal(after.length, count - 1) // the voided one is not listed
    assert.deepEqual(after.sort(byId), before.sort(byId))
    // and the export of the copy is the export of the original, the voided
    // statement included (members may come in another order)
    const lines = (text) => text.trim().split('\n').map((l) => JSON.parse(l)).sort(byId)
    const again = await target.http('/admin/statements/export')
    assert.deepEqual(lines(again.text), lines(exported.text))
    await Promise.all([source.close({ graceMs: 0 }), target.close({ graceMs: 0 })]) // before their stores go
  })
}

test('export takes since and until, and refuses bad values', async () => {
  const lrs = await startLrs()
  assert.equal((await lrs.client('/statements', { method: 'POST', body: [statement(), statement()] })).status, 200)
  const all = (await lrs.http('/admin/statements/export')).text.trim().split('\n').map((l) => JSON.parse(l))
  const cut = all[0].stored
  const later = await lrs.http(`/admin/statements/export?since=${encodeURIComponent(cut)}`)
  assert.ok(later.text.trim().split('\n').filter(Boolean).every((l) => JSON.parse(l).stored > cut))
  const upTo = await lrs.http(`/admin/statements/export?until=${encodeURIComponent(cut)}`)
  assert.ok(upTo.text.trim().split('\n').every((l) => JSON.parse(l).stored <= cut))
  for (const bad of ['?since=yesterday', '?until=1', '?limit=3']) assert.equal((await lrs.http('/admin/statements/export' + bad)).status, 400)
})

test('a long export over HTTP waits for the client page after page without piling up listeners', async () => {
  const lrs = await startLrs()
  const pages = 12 // of 1,000 statements (export-statements.js); Node warns past 10 listeners
  for (let i = 0; i < pages; i++) {
    assert.equal((await lrs.client('/statements', { method: 'POST', body: Array.from({ length: 1000 }, () => statement()) })).status, 200)
  }
  const warnings = []
  const onWarning = (w) => warnings.push(w.name)
  process.on('warning', onWarning)
  test.after(() => process.off('warning', onWarning))
  const exported = await lrs.http('/admin/statements/export')
  assert.equal(exported.text.trim().split('\n').length, pages * 1000)
  await new Promise((resolve) => setImmediate(resolve)) // warnings are emitted on the next tick
  assert.deepEqual(warnings.filter((w) => w === 'MaxListenersExceededWarning'), [])
})

test('a JSON array file imports; bad statements are rejected with their reasons and the rest is stored', async () => {
  const good = Array.from({ length: 5 }, () => ({ ...statement(), id: crypto.randomUUID() }))
  const future = { ...statement(), id: crypto.randomUUID(), stored: new Date(Date.now() + 3600e3).toISOString() }
  const ancient = { ...statement(), id: crypto.randomUUID(), stored: '1969-12-31T23:59:59.999Z' }
  const items = [good[0], { actor: 'nobody' }, good[1], 42, good[2], { ...statement() }, null, future, ancient, good[3], good[4]]
  const file = tempFile('statements.json')
  fs.writeFileSync(file, JSON.stringify(items, null, 2))
  const store = newStore()
  const res = await runCli('import', [file], store)
  assert.equal(res.code, 1)
  assert.match(res.stdout, /\(array\): 5 stored, 0 already stored, 6 rejected/)
  assert.match(res.stdout, /1 {2}stored is later than the start of the import/)
  assert.match(res.stdout, /1 {2}stored is before 1970/)
  assert.match(res.stdout, /statement #2 \(byte \d+\)/)
  assert.match(res.stdout, /has no id/)
  assert.match(res.stdout, /2 {2}not a JSON object/) // 42 and null
  const lrs = await startLrs({ ...store })
  const ids = (await allStatements(lrs)).map((s) => s.id).sort()
  assert.deepEqual(ids, good.map((s) => s.id).sort())
  // statements without stored and authority get the import's
  assert.equal((await lrs.client(`/statements?statementId=${good[0].id}`)).json.authority.account.name, 'import')
})

// An LRS that stores a large batch at once gives its statements one
// `stored`; the SQLite engine orders statements by a key with room for
// 2,048 per millisecond.
test('more than 2,048 statements with one stored time, and as many without one, import with their stored kept', async () => {
  const stored = '2026-02-03T04:05:06.789Z'
  const shared = Array.from({ length: 2100 }, () => ({ ...statement(), id: crypto.randomUUID(), stored }))
  const later = { ...statement(), id: crypto.randomUUID(), stored: '2026-02-03T04:05:06.790Z' }
  const unstamped = Array.from({ length: 2100 }, () => ({ ...statement(), id: crypto.randomUUID() }))
  const file = tempFile('one-ms.ndjson')
  fs.writeFileSync(file, [...shared, later, ...unstamped].map((s) => JSON.stringify(s)).join('\n') + '\n') // in stored order, as exports are
  const store = newStore()
  const started = Date.now()
  const res = await runCli('import', [file], store)
  assert.equal(res.code, 0, res.stderr + res.stdout)
  assert.match(res.stdout, /4201 stored, 0 already stored, 0 rejected/)

  const lrs = await startLrs({ ...store })
  const exported = (await lrs.http('/admin/statements/export')).text.trim().split('\n').map((l) => JSON.parse(l))
  assert.equal(exported.length, 4201)
  const storedOf = new Map(exported.map((s) => [s.id, s.stored]))
  assert.deepEqual([...new Set(shared.map((s) => storedOf.get(s.id)))], [stored])
  assert.equal(storedOf.get(later.id), later.stored)
  for (const s of unstamped) assert.ok(Date.parse(storedOf.get(s.id)) >= started - 1000, storedOf.get(s.id))
  // each is found by id with its stored, and since/until select by it
  const one = await lrs.client(`/statements?statementId=${shared[2099].id}`)
  assert.equal(one.json.stored, stored)
  const upTo = await lrs.http(`/admin/statements/export?until=${encodeURIComponent(stored)}`)
  assert.equal(upTo.text.trim().split('\n').length, 2100)
  const after = await lrs.http(`/admin/statements/export?since=${encodeURIComponent(stored)}&until=${encodeURIComponent(later.stored)}`)
  assert.deepEqual(after.text.trim().split('\n').map((l) => JSON.parse(l).id), [later.id])
  const page = await lrs.client(`/statements?until=${encodeURIComponent(stored)}&limit=1`)
  assert.equal(page.json.statements[0].stored, stored) // the newest at or before it, not later's
  const next = await lrs.client(`/statements?since=${encodeURIComponent(stored)}&ascending=true&limit=1`)
  assert.equal(next.json.statements[0].id, later.id)
  // and the export imports again into an empty store unchanged
  const again = tempFile('again.ndjson')
  fs.writeFileSync(again, exported.map((s) => JSON.stringify(s)).join('\n') + '\n')
  const copyStore = newStore()
  assert.equal((await runCli('import', [again], copyStore)).code, 0)
  const copy = await startLrs({ ...copyStore })
  const reExported = (await copy.http('/admin/statements/export')).text.trim().split('\n').map((l) => JSON.parse(l))
  assert.deepEqual(new Map(reExported.map((s) => [s.id, s.stored])), storedOf)
})

test('a statement text far longer than a stored statement may be is rejected without being held, in NDJSON and in arrays', async () => {
  const store = { ...newStore(), LRS_MAX_STATEMENT_BYTES: '2048' } // texts of up to 8,192 bytes are read
  const good = () => ({ ...statement(), id: crypto.randomUUID() })
  const big = () => ({ ...statement({ result: { extensions: { 'http://example.com/x': 'x'.repeat(100000) } } }), id: crypto.randomUUID() })
  const ok = [good(), good(), good(), good()]
  const lines = tempFile('big.ndjson')
  fs.writeFileSync(lines, [ok[0], big(), ok[1], big()].map((s) => JSON.stringify(s)).join('\n')) // the last without a line break
  const array = tempFile('big.json')
  fs.writeFileSync(array, JSON.stringify([ok[2], big(), ok[3]], null, 2))
  const res = await runCli('import', [lines, array], store)
  assert.equal(res.code, 1, res.stderr)
  assert.match(res.stdout, /\(ndjson\): 2 stored, 0 already stored, 2 rejected/)
  assert.match(res.stdout, /\(array\): 2 stored, 0 already stored, 1 rejected/)
  assert.match(res.stdout, /3 {2}longer than 8192 bytes of text/)
  const lrs = await startLrs({ ...store })
  assert.deepEqual((await allStatements(lrs)).map((s) => s.id).sort(), ok.map((s) => s.id).sort())
})

test('a JSON array file that ends inside a statement stores the ones before and reports that one', async () => {
  const good = { ...statement(), id: crypto.randomUUID() }
  const file = tempFile('cut.json')
  fs.writeFileSync(file, `[${JSON.stringify(good)}, {"actor": {"mbox": "mailto:a@example.com"}, "verb":`)
  const store = newStore()
  const res = await runCli('import', [file], store)
  assert.equal(res.code, 1, res.stderr)
  assert.match(res.stdout, /\(array\): 1 stored, 0 already stored, 1 rejected/)
  assert.match(res.stdout, /1 {2}the file ends inside this statement/)
  const lrs = await startLrs({ ...store })
  assert.deepEqual((await allStatements(lrs)).map((s) => s.id), [good.id])
})

test('an NDJSON line with a name given twice in one object is rejected, as a POST would be', async () => {
  const good = JSON.stringify({ ...statement(), id: crypto.randomUUID() })
  const twice = JSON.stringify({ ...statement(), id: crypto.randomUUID() }).slice(0, -1) + ',"result":{"success":true,"success":false}}'
  const file = tempFile('twice.ndjson')
  fs.writeFileSync(file, `${good}\n${twice}\n`)
  const res = await runCli('import', [file], newStore())
  assert.equal(res.code, 1)
  assert.match(res.stdout, /1 stored, 0 already stored, 1 rejected/)
  assert.match(res.stdout, /member name twice/)
})

test('an interrupted import resumes where it stopped', async () => {
  const count = 2500 // more than one chunk of the import (2,000)
  const lines = Array.from({ length: count }, () => JSON.stringify({ ...statement(), id: crypto.randomUUID(), stored: new Date(Date.now() - 3600e3).toISOString() }))
  const file = tempFile('big.ndjson')
  fs.writeFileSync(file, lines.join('\n') + '\n')
  const store = newStore()
  const lrs = await startLrs({ ...store })
  // The first run stops right after it recorded its first chunk, as a
  // crash there would (the chunks after it may be stored, not recorded).
  const config = loadConfig({ MONGODB_URI: '', ...store })
  const saved = fileCheckpoints(config.dataDir)
  const interrupted = await importFiles([file], {
    storage: lrs.storage,
    validator: createStatementValidator(config),
    importAuthority: { objectType: 'Agent', account: { homePage: 'http://example.com', name: 'import' } },
    limits: { maxDepth: config.maxJsonDepth, maxStringLength: config.maxStringLength, maxStatementBytes: config.maxStatementBytes },
    checkpoints: { ...saved, save: async (...args) => { await saved.save(...args); throw new Error('interrupted') } }
  }).catch((err) => err)
  assert.equal(interrupted.message, 'interrupted')
  const second = await runCli('import', [file], store)
  assert.equal(second.code, 0, second.stderr)
  assert.match(second.stdout, /resumed at byte [1-9]/)
  const exported = await lrs.http('/admin/statements/export')
  assert.deepEqual(exported.text.trim().split('\n').map((l) => JSON.parse(l).id).sort(), lines.map((l) => JSON.parse(l).id).sort())
  const checkpoints = path.join(store.LRS_DATA_DIR, 'imports')
  assert.deepEqual(fs.readdirSync(checkpoints).filter((f) => f.endsWith('.json')), []) // done: no checkpoint left
})
