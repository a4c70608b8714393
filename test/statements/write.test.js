'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')

test('storing statements', async (t) => {
  const lrs = await startLrs()
  const xapi = lrs.client
  const count = async (ids) => (await lrs.storage.statements.findBodies(ids)).size

  await t.test('POST stores a statement and returns its id; the LRS sets stored, authority, version and timestamp (Data 2.4)', async () => {
    const res = await xapi('/statements', { method: 'POST', body: statement() })
    assert.equal(res.status, 200)
    assert.equal(res.json.length, 1)
    const got = await xapi(`/statements?statementId=${res.json[0]}`)
    assert.equal(got.status, 200)
    assert.equal(got.json.id, res.json[0])
    assert.match(got.json.stored, /Z$/)
    assert.equal(got.json.timestamp, got.json.stored)
    assert.equal(got.json.version, '1.0.0')
    assert.deepEqual(got.json.authority.account, { homePage: 'http://localhost/lrs', name: 'admin' })
    assert.ok(got.headers.get('last-modified'))
    assert.ok(got.headers.get('x-experience-api-consistent-through'))
  })

  await t.test('POST of an array returns the ids in order', async () => {
    const ids = [crypto.randomUUID(), crypto.randomUUID()]
    const res = await xapi('/statements', { method: 'POST', body: [statement({ id: ids[0] }), statement(), statement({ id: ids[1] })] })
    assert.equal(res.status, 200)
    assert.equal(res.json.length, 3)
    assert.equal(res.json[0], ids[0])
    assert.equal(res.json[2], ids[1])
  })

  await t.test('PUT stores with the given id (204); the same statement again is not stored twice (Communication 2.1.1)', async () => {
    const id = crypto.randomUUID()
    const s = statement()
    assert.equal((await xapi(`/statements?statementId=${id}`, { method: 'PUT', body: s })).status, 204)
    assert.equal((await xapi(`/statements?statementId=${id}`, { method: 'PUT', body: s })).status, 204)
    assert.equal((await xapi('/statements', { method: 'POST', body: { ...s, id } })).status, 200)
    assert.equal(await count([id]), 1)
  })

  await t.test('an existing id with different content is 409 and nothing changes', async () => {
    const id = crypto.randomUUID()
    const s = statement()
    await xapi(`/statements?statementId=${id}`, { method: 'PUT', body: s })
    const other = { ...s, verb: { id: 'http://adlnet.gov/expapi/verbs/failed' } }
    const res = await xapi(`/statements?statementId=${id}`, { method: 'PUT', body: other })
    assert.equal(res.status, 409)
    assert.equal(res.json.code, 'LRS_ERR_STATEMENT_CONFLICT')
    const got = await xapi(`/statements?statementId=${id}`)
    assert.equal(got.json.verb.id, 'http://adlnet.gov/expapi/verbs/completed')
  })

  // The store does not look up an id the LRS has just made (a random
  // UUID); it must still find it for the next write that names it.
  await t.test('an id the LRS made is taken: a later PUT with it and other content is 409, with the same content 204', async () => {
    const s = statement()
    const [id] = (await xapi('/statements', { method: 'POST', body: s })).json
    const other = await xapi(`/statements?statementId=${id}`, { method: 'PUT', body: statement() })
    assert.equal(other.status, 409, other.text)
    const same = await xapi(`/statements?statementId=${id}`, { method: 'PUT', body: s })
    assert.equal(same.status, 204, same.text)
    assert.equal(await count([id]), 1)
  })

  await t.test('a batch with a conflicting statement is 409 and stores none of its other statements', async () => {
    const id = crypto.randomUUID()
    await xapi(`/statements?statementId=${id}`, { method: 'PUT', body: statement() })
    const fresh = crypto.randomUUID()
    const res = await xapi('/statements', { method: 'POST', body: [statement({ id: fresh }), statement({ id })] })
    assert.equal(res.status, 409)
    assert.equal(await count([fresh]), 0)
  })

  await t.test('concurrent requests: a conflicting one fails alone, the others in the same batch are stored', async () => {
    const id = crypto.randomUUID()
    await xapi(`/statements?statementId=${id}`, { method: 'PUT', body: statement() })
    const good = Array.from({ length: 10 }, () => statement({ id: crypto.randomUUID() }))
    const results = await Promise.all([
      ...good.map((s) => xapi('/statements', { method: 'POST', body: s })),
      xapi('/statements', { method: 'POST', body: statement({ id }) })
    ])
    assert.deepEqual(results.map((r) => r.status), [...good.map(() => 200), 409])
    assert.equal(await count(good.map((s) => s.id)), 10)
  })

  await t.test('an invalid statement in a batch is 400 naming the field, and nothing of the batch is stored', async () => {
    const ok = statement({ id: crypto.randomUUID() })
    const res = await xapi('/statements', { method: 'POST', body: [ok, statement({ verb: { id: 'not an iri' } })] })
    assert.equal(res.status, 400)
    assert.match(res.json.message, /verb/)
    assert.equal(await count([ok.id]), 0)
  })

  await t.test('the same id twice in one POST is 400 (2.0 §4.1.6.1)', async () => {
    const id = crypto.randomUUID()
    const res = await xapi('/statements', { method: 'POST', body: [statement({ id }), statement({ id })], version: '2.0.0' })
    assert.equal(res.status, 400)
    assert.equal(res.json.code, 'LRS_ERR_STATEMENT_ID_DUPLICATE')
  })

  await t.test('statement validation rejects what the spec forbids (Data 2.2, 2.4)', async () => {
    const cases = {
      'unknown property': statement({ dummy: 1 }),
      'two IFIs': statement({ actor: { mbox: 'mailto:a@b.c', openid: 'http://openid.example/a' } }),
      'mbox without mailto': statement({ actor: { mbox: 'a@b.c' } }),
      'bad language tag': statement({ verb: { id: 'http://x.y/v', display: { 'not a tag!': 'x' } } }),
      'null outside extensions': statement({ result: { success: null } }),
      'bad duration': statement({ result: { duration: 'PA1H' } }),
      'bad timestamp': statement({ timestamp: '2008-09-15T15:53:00.601-00:00' }),
      'no such day': statement({ timestamp: '2023-02-29T10:00:00Z' }),
      'leap second': statement({ timestamp: '2016-12-31T23:59:60Z' }),
      'zone past 23 hours': statement({ timestamp: '2024-01-01T10:00:00+24:00' }),
      'bad uuid': statement({ id: 'not-a-uuid' }),
      'revision with agent object': statement({ object: { objectType: 'Agent', mbox: 'mailto:x@y.z' }, context: { revision: '1' } }),
      'extension key not an IRI': statement({ result: { extensions: { notiri: 1 } } }),
      'unsupported version': statement({ version: '2.0.0' }),
      'contextAgents in 1.0.3': statement({ context: { contextAgents: [{ objectType: 'contextAgent', agent: { mbox: 'mailto:a@b.c' } }] } })
    }
    for (const [name, body] of Object.entries(cases)) {
      const res = await xapi('/statements', { method: 'POST', body })
      assert.equal(res.status, 400, name)
      assert.ok(res.json.message, name)
    }
  })

  await t.test('a name given twice in one object is 400 and nothing of the request is stored: the LRS would index one value and return the other', async () => {
    const id = crypto.randomUUID()
    const other = crypto.randomUUID()
    const good = JSON.stringify(statement({ id: crypto.randomUUID() }))
    const one = JSON.stringify(statement())
    const bodies = [
      `{"id":"${id}",${one.slice(1, -1)},"id":"${other}"}`, // top level
      `${one.slice(0, -1)},"result":{"success":true,"success":false}}`, // nested
      `${one.slice(0, -1)},"result":{"success":true,"\\u0073uccess":false}}`, // the same name spelled with an escape
      `[${good},{"id":"${other}",${one.slice(1, -1)},"id":"${id}"}]` // in a batch: the good one is not stored either
    ]
    for (const body of bodies) {
      const res = await xapi('/statements', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } })
      assert.equal(res.status, 400, body)
      assert.match(res.json.message, /twice/)
    }
    for (const stmtId of [id, other, JSON.parse(good).id]) assert.equal((await xapi(`/statements?statementId=${stmtId}`)).status, 404)
    assert.equal((await xapi('/statements', { method: 'POST', body: `${one.slice(0, -1)},"result":{"extensions":{"http://x.y/a":{"k":1},"http://x.y/b":{"k":1}}}}`, headers: { 'Content-Type': 'application/json' } })).status, 200, 'the same name in different objects is fine')
  })

  await t.test('2.0: contextAgents and version 2.0.0 are accepted; timestamps are converted to UTC (2.0 §4.2.7)', async () => {
    const s = statement({
      version: '2.0.0',
      timestamp: '2024-01-01T10:00:00.000-05:00',
      context: { contextAgents: [{ objectType: 'contextAgent', agent: { mbox: 'mailto:coach@example.com' }, relevantTypes: ['http://example.com/types/coach'] }] }
    })
    const res = await xapi('/statements', { method: 'POST', body: s, version: '2.0.0' })
    assert.equal(res.status, 200)
    const got = await xapi(`/statements?statementId=${res.json[0]}`, { version: '2.0.0' })
    assert.equal(got.json.timestamp, '2024-01-01T15:00:00.000Z')
    assert.equal(got.json.version, '2.0.0')
    assert.equal(got.headers.get('x-experience-api-version'), '2.0.0')
  })

  await t.test('extension keys with dots are stored and returned unchanged', async () => {
    const ext = { 'http://example.com/ext.with.dots': { 'nested.key': [1, 2] }, 'http://example.com/$dollar': true }
    const res = await xapi('/statements', { method: 'POST', body: statement({ result: { extensions: ext } }) })
    assert.equal(res.status, 200)
    const got = await xapi(`/statements?statementId=${res.json[0]}`)
    assert.deepEqual(got.json.result.extensions, ext)
  })

  // The write path stores the client's own text with the LRS's properties
  // appended when it can (statement-record.js), and serialises again when
  // something must be replaced or normalised.
  await t.test('statements come back as sent plus what the LRS sets, whatever the JSON layout and string content', async () => {
    const tricky = statement({
      result: {
        response: 'a "quoted" } ] { [ \\ \\" answer, tab\t, newline\n, ünïcödé ✓ 😀',
        extensions: { 'http://example.com/ext': { '"}': ['{', '}', '\\'], n: [1.5e3, -0.25, null, true] } }
      }
    })
    const plain = statement({ id: crypto.randomUUID(), version: '1.0.3', timestamp: '2024-05-01T08:00:00Z' })
    const text = '[\n  ' + JSON.stringify(tricky, null, 2) + ' ,\r\n\t' + JSON.stringify(plain) + '\n]\n'
    const res = await xapi('/statements', { method: 'POST', body: text, headers: { 'Content-Type': 'application/json' } })
    assert.equal(res.status, 200, res.text)
    const [a, b] = await Promise.all(res.json.map((id) => xapi(`/statements?statementId=${id}`)))
    const lrsSet = (got) => ({ id: got.id, stored: got.stored, authority: got.authority, version: got.version, timestamp: got.timestamp })
    assert.deepEqual(a.json, { ...tricky, ...lrsSet(a.json) })
    assert.equal(a.json.id, res.json[0])
    assert.equal(a.json.timestamp, a.json.stored)
    assert.equal(a.json.version, '1.0.0')
    assert.deepEqual(b.json, { ...plain, stored: b.json.stored, authority: b.json.authority })
    assert.deepEqual(a.json.authority.account, { homePage: 'http://localhost/lrs', name: 'admin' })
    const single = await xapi('/statements', { method: 'POST', body: '  ' + JSON.stringify(tricky) + '  ', headers: { 'Content-Type': 'application/json' } })
    const c = await xapi(`/statements?statementId=${single.json[0]}`)
    assert.deepEqual(c.json, { ...tricky, ...lrsSet(c.json) })
  })

  await t.test('what the LRS sets replaces what the client sent; ids, timestamps and context activities are normalised', async () => {
    const id = crypto.randomUUID()
    const parent = { id: 'http://example.com/parent' }
    const sent = [
      statement({ id: id.toUpperCase() }),
      statement({ authority: { mbox: 'mailto:forged@example.com' }, stored: '2000-01-01T00:00:00Z' }),
      statement({ timestamp: '2024-01-01T10:00:00+02:00', context: { contextActivities: { parent } } }),
      statement()
    ]
    const res = await xapi('/statements', { method: 'POST', body: sent })
    assert.equal(res.status, 200, res.text)
    assert.equal(res.json[0], id)
    const got = (await Promise.all(res.json.map((sid) => xapi(`/statements?statementId=${sid}`)))).map((r) => r.json)
    assert.equal(got[0].id, id)
    assert.deepEqual(got[1].authority.account, { homePage: 'http://localhost/lrs', name: 'admin' })
    assert.notEqual(got[1].stored, '2000-01-01T00:00:00Z')
    assert.equal(got[1].stored, got[3].stored)
    assert.equal(got[2].timestamp, '2024-01-01T08:00:00.000Z')
    assert.deepEqual(got[2].context.contextActivities, { parent: [parent] })
    const byAuthority = await xapi('/statements?related_agents=true&agent=' + encodeURIComponent(JSON.stringify({ mbox: 'mailto:forged@example.com' })))
    assert.equal(byAuthority.json.statements.length, 0)
  })

  await t.test('PUT with the id only in the parameter stores the statement with that id', async () => {
    const id = crypto.randomUUID()
    const res = await xapi(`/statements?statementId=${id}`, { method: 'PUT', body: statement() })
    assert.equal(res.status, 204)
    const got = await xapi(`/statements?statementId=${id}`)
    assert.equal(got.json.id, id)
  })

  await t.test('bad JSON is a 400 with a JSON message, never a 500', async () => {
    const res = await xapi('/statements', { method: 'POST', body: '{"actor":', headers: { 'Content-Type': 'application/json' } })
    assert.equal(res.status, 400)
    assert.equal(res.json.code, 'LRS_ERR_JSON_INVALID')
    assert.equal(res.json.message, 'request body is not valid JSON: line 1, column 10: the text ends too soon')
  })

  await t.test('a JSON error names its line and column and what was found there', async () => {
    const body = '[\n  {"actor": {"mbox": "mailto:a@example.com"},\n   "verb": {"id": "http://example.com/v"}\n   "object": {"id": "http://example.com/o"}}\n]'
    const res = await xapi('/statements', { method: 'POST', body, headers: { 'Content-Type': 'application/json' } })
    assert.equal(res.status, 400)
    assert.equal(res.json.message, 'request body is not valid JSON: line 4, column 4: unexpected \'"\'')
    const admin = await lrs.http('/admin/credentials', { method: 'POST', body: '{"scopes": ["all",]}', headers: { 'Content-Type': 'application/json' } })
    assert.equal(admin.status, 400)
    assert.equal(admin.json.message, 'request body is not valid JSON: line 1, column 19: unexpected \']\'')
  })
})
