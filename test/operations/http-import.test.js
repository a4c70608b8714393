'use strict'

// POST /admin/statements/import: an export's NDJSON sent back over HTTP,
// into the credential's store, with ids, stored, authority and voiding
// kept; idempotent; what cannot be stored is counted and listed by line,
// the rest stored.

const test = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const http = require('node:http')
const { startLrs, ADMIN, ENGINE } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { until } = require('../helpers/wait')
const { storeWithAdmin } = require('../helpers/stores')

const VOIDED = 'http://adlnet.gov/expapi/verbs/voided'

async function allStatements (client, auth) {
  const out = []
  let url = '/statements?limit=100&ascending=true'
  for (;;) {
    const page = await client(url, { auth })
    assert.equal(page.status, 200, page.text)
    out.push(...page.json.statements)
    if (!page.json.more) return out
    url = page.json.more.replace(/^\/xapi/, '')
  }
}

const importInto = (lrs, text, { auth, type = 'application/x-ndjson' } = {}) =>
  lrs.http('/admin/statements/import', { method: 'POST', body: text, raw: true, headers: { 'Content-Type': type }, ...(auth ? { auth } : {}) })

test('an export imported over HTTP into another store gives the same statements: ids, stored, authority, voiding; a second import stores nothing', async () => {
  const lrs = await startLrs()
  const batch = Array.from({ length: 25 }, () => statement())
  batch.push(statement({ actor: { objectType: 'Group', name: 'team', member: [{ mbox: 'mailto:m@example.com' }] }, context: { registration: crypto.randomUUID() } }))
  assert.equal((await lrs.client('/statements', { method: 'POST', body: batch })).status, 200)
  const target = (await lrs.client(`/statements?agent=${encodeURIComponent(JSON.stringify(batch[0].actor))}`)).json.statements[0].id
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: target } }) })).status, 200)
  const exported = await lrs.http('/admin/statements/export')
  assert.equal(exported.status, 200)
  assert.equal(exported.text.trim().split('\n').length, 27)

  const acme = (await storeWithAdmin(lrs, 'acme')).auth
  const imported = await importInto(lrs, exported.text, { auth: acme })
  assert.equal(imported.status, 200, imported.text)
  assert.deepEqual(imported.json, { stored: 27, existing: 0, rejected: 0, rejects: [] })
  assert.deepEqual(await allStatements(lrs.client, acme), await allStatements(lrs.client))
  assert.equal((await lrs.client(`/statements?statementId=${target}`, { auth: acme })).status, 404)
  assert.equal((await lrs.client(`/statements?voidedStatementId=${target}`, { auth: acme })).json.id, target)

  const again = await importInto(lrs, exported.text, { auth: acme })
  assert.deepEqual(again.json, { stored: 0, existing: 27, rejected: 0, rejects: [] })
  assert.equal((await allStatements(lrs.client, acme)).length, 26)
  // the default store holds what it held: nothing was imported there
  assert.equal((await allStatements(lrs.client)).length, 26)
})

test('an import stores what it can and lists what it could not by line: not JSON, no id, an invalid statement, an id twice, a different statement under a stored id', async () => {
  const lrs = await startLrs()
  const acme = (await storeWithAdmin(lrs, 'acme')).auth
  const held = statement({ id: crypto.randomUUID() })
  assert.equal((await lrs.client('/statements', { method: 'POST', auth: acme, body: held })).status, 200)
  const fine = [statement({ id: crypto.randomUUID() }), statement({ id: crypto.randomUUID() })]
  const twice = statement({ id: crypto.randomUUID() })
  const lines = [
    JSON.stringify(fine[0]),
    '{"not json',
    JSON.stringify(statement()), // no id
    JSON.stringify({ ...statement({ id: crypto.randomUUID() }), verb: { id: 'not an IRI' } }),
    '',
    JSON.stringify(twice),
    JSON.stringify(twice),
    JSON.stringify({ ...held, verb: { id: 'http://example.com/verbs/other' } }),
    JSON.stringify(fine[1]) // no newline after the last line
  ]
  const res = await importInto(lrs, lines.join('\n'), { auth: acme })
  assert.equal(res.status, 200, res.text)
  assert.equal(res.json.stored, 3)
  assert.equal(res.json.existing, 0)
  assert.equal(res.json.rejected, 5)
  assert.deepEqual(res.json.rejects.map((r) => r.line), [2, 3, 4, 7, 8]) // line 5 is blank
  assert.match(res.json.rejects[0].reason, /not valid JSON/)
  assert.match(res.json.rejects[1].reason, /no id/)
  assert.match(res.json.rejects[3].reason, /appears earlier/)
  assert.match(res.json.rejects[4].reason, /a different statement with id/)
  for (const s of [...fine, twice]) {
    const got = await lrs.client(`/statements?statementId=${s.id}`, { auth: acme })
    assert.equal(got.status, 200)
    // without an authority of its own: the importing credential's, as a POST would give
    assert.equal(got.json.authority.account.name, acme[0])
  }
  assert.equal((await lrs.client(`/statements?statementId=${held.id}`, { auth: acme })).json.verb.id, held.verb.id, 'the stored statement is left as it was')
  assert.equal((await lrs.client(`/statements?statementId=${fine[0].id}`)).status, 404, 'nothing of it in the default store')
})

// Data 2.4.9: with OAuth the authority is an anonymous Group of two, the
// application and the user. An import of such a statement once failed
// whole (the SQLite engine had no key for the authority's index term).
test('a statement whose authority is an OAuth Group of two imports with it kept, is found by id and through its members by related_agents, and not by a statements/read/mine credential', async () => {
  const lrs = await startLrs()
  const user = { mbox: `mailto:oauth-${crypto.randomUUID()}@example.com` }
  const app = { account: { homePage: 'https://apps.example.com', name: `app-${crypto.randomUUID()}` } }
  const authority = { objectType: 'Group', member: [app, user] }
  const oauth = { ...statement(), id: crypto.randomUUID(), stored: '2026-01-01T00:00:00.000Z', authority }
  const plain = { ...statement(), id: crypto.randomUUID(), stored: '2026-01-01T00:00:01.000Z' }
  const imported = await importInto(lrs, [oauth, plain].map((s) => JSON.stringify(s)).join('\n') + '\n')
  assert.equal(imported.status, 200, imported.text)
  assert.deepEqual(imported.json, { stored: 2, existing: 0, rejected: 0, rejects: [] })
  const byId = await lrs.client(`/statements?statementId=${oauth.id}`)
  assert.equal(byId.status, 200)
  assert.deepEqual(byId.json.authority, authority)
  for (const member of [user, app]) {
    const related = await lrs.client(`/statements?agent=${encodeURIComponent(JSON.stringify(member))}&related_agents=true`)
    assert.deepEqual(related.json.statements.map((s) => s.id), [oauth.id])
    assert.deepEqual((await lrs.client(`/statements?agent=${encodeURIComponent(JSON.stringify(member))}`)).json.statements, [])
  }
  const mine = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['statements/read/mine'] } })
  const asMine = [mine.json.key, mine.json.secret]
  assert.equal((await lrs.client(`/statements?statementId=${oauth.id}`, { auth: asMine })).status, 404)
  assert.deepEqual((await lrs.client('/statements', { auth: asMine })).json.statements, [])
})

test('an import is refused without NDJSON, without credentials and without the admin scope, and stores nothing', async () => {
  const lrs = await startLrs()
  const s = statement({ id: crypto.randomUUID() })
  const json = await importInto(lrs, JSON.stringify(s), { type: 'application/json' })
  assert.equal(json.status, 415)
  assert.equal(json.json.code, 'LRS_ERR_MEDIA_TYPE')
  assert.match(json.json.message, /application\/x-ndjson/)
  const none = await lrs.http('/admin/statements/import', { method: 'POST', auth: null, body: JSON.stringify(s), raw: true, headers: { 'Content-Type': 'application/x-ndjson' } })
  assert.equal(none.status, 401)
  const writer = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'] } })
  const refused = await importInto(lrs, JSON.stringify(s), { auth: [writer.json.key, writer.json.secret] })
  assert.equal(refused.status, 403)
  assert.equal((await lrs.client(`/statements?statementId=${s.id}`)).status, 404)
})

test('an import cut short by its client keeps what was stored and is logged as such, not as an error; sent again whole, it stores the rest', async () => {
  const logLines = []
  const lrs = await startLrs({ LRS_LOG_LEVEL: 'info' }, { logLines })
  // on SQLite the cut comes after a first chunk (import-statements.js, CHUNK) was stored; on FerretDB
  // before it: statements stored already make an import slow there (2,000 of them: about 50 s)
  const n = ENGINE === 'mongodb' ? 1500 : 3000
  const batch = Array.from({ length: n }, () => statement({ id: crypto.randomUUID() }))
  const text = batch.map((s) => JSON.stringify(s)).join('\n') + '\n'
  const cut = text.slice(0, Math.floor(text.length * 0.7))
  // the first 70 % of the body, then the connection closed
  await new Promise((resolve) => {
    const { hostname, port } = new URL(lrs.url)
    const req = http.request({ hostname, port, path: '/admin/statements/import', method: 'POST', headers: { 'Content-Type': 'application/x-ndjson', 'Content-Length': Buffer.byteLength(text), Authorization: 'Basic ' + Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64') } })
    req.on('error', resolve)
    req.write(cut, () => setTimeout(() => { req.destroy(); resolve() }, 300))
  })
  assert.ok(await until(() => logLines.some((l) => l.msg === 'statement import cut short by the client')), 'the cut is logged')
  assert.deepEqual(logLines.filter((l) => l.level >= 50), [], 'no error logged')
  const whole = await importInto(lrs, text)
  assert.equal(whole.status, 200, whole.text)
  assert.equal(whole.json.stored + whole.json.existing, n)
  assert.equal(whole.json.rejected, 0)
  for (const s of [batch[0], batch[n - 1]]) assert.equal((await lrs.client(`/statements?statementId=${s.id}`)).status, 200)
})
