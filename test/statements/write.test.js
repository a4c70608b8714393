'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')

test('storing statements', async (t) => {
  const lrs = await startLrs()
  const xapi = lrs.client
  const count = (filter = {}) => lrs.database.db.collection('statements').countDocuments(filter)

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
    assert.equal(await count({ _id: id }), 1)
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

  await t.test('a batch with a conflicting statement is 409 and stores none of its other statements', async () => {
    const id = crypto.randomUUID()
    await xapi(`/statements?statementId=${id}`, { method: 'PUT', body: statement() })
    const fresh = crypto.randomUUID()
    const res = await xapi('/statements', { method: 'POST', body: [statement({ id: fresh }), statement({ id })] })
    assert.equal(res.status, 409)
    assert.equal(await count({ _id: fresh }), 0)
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
    assert.equal(await count({ _id: { $in: good.map((s) => s.id) } }), 10)
  })

  await t.test('an invalid statement in a batch is 400 naming the field, and nothing of the batch is stored', async () => {
    const ok = statement({ id: crypto.randomUUID() })
    const res = await xapi('/statements', { method: 'POST', body: [ok, statement({ verb: { id: 'not an iri' } })] })
    assert.equal(res.status, 400)
    assert.match(res.json.message, /verb/)
    assert.equal(await count({ _id: ok.id }), 0)
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

  await t.test('bad JSON is a 400 with a JSON message, never a 500', async () => {
    const res = await xapi('/statements', { method: 'POST', body: '{"actor":', headers: { 'Content-Type': 'application/json' } })
    assert.equal(res.status, 400)
    assert.equal(res.json.code, 'LRS_ERR_JSON_INVALID')
  })
})
