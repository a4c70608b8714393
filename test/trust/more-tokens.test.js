'use strict'

// Issue 10 item 1: nothing a client sends reaches a database filter except
// as a literal of the expected type; `more` tokens cannot be altered.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')

const path = (more) => more.replace(/^\/xapi/, '')

async function seed (lrs, count, overrides = () => ({})) {
  const verb = `http://example.com/verbs/${crypto.randomUUID()}`
  const body = Array.from({ length: count }, (_, i) => statement({ verb: { id: verb }, ...overrides(i) }))
  const res = await lrs.client('/statements', { method: 'POST', body })
  assert.equal(res.status, 200, res.text)
  // One request, one stored time: how ties are ordered is the engine's
  // choice, so the order is the one a plain walk of the pages gives.
  const ids = []
  let url = `/statements?verb=${encodeURIComponent(verb)}&ascending=true`
  while (url) {
    const page = await lrs.client(url)
    ids.push(...page.json.statements.map((s) => s.id))
    url = page.json.more ? path(page.json.more) : ''
  }
  assert.deepEqual([...ids].sort(), [...res.json].sort())
  return { verb, ids }
}

test('an altered more token is 400, and so is a forged one', async () => {
  const lrs = await startLrs({ LRS_STATEMENTS_MAX_LIMIT: '2' })
  const { verb } = await seed(lrs, 5)
  const first = await lrs.client(`/statements?verb=${encodeURIComponent(verb)}`)
  assert.equal(first.status, 200)
  const token = first.json.more.split('more=')[1]
  const sealed = Buffer.from(token, 'base64url')

  // Any byte changed (the nonce, the sealed query, the tag), or cut short.
  for (const at of [0, 20, sealed.length - 1]) {
    const altered = Buffer.from(sealed)
    altered[at] ^= 1
    const res = await lrs.client(`/statements?more=${altered.toString('base64url')}`)
    assert.equal(res.status, 400, res.text)
    assert.equal(res.json.code, 'LRS_ERR_PARAMETER_INVALID')
  }
  assert.equal((await lrs.client(`/statements?more=${sealed.subarray(0, 20).toString('base64url')}`)).status, 400)
  // The formats earlier versions accepted, with an operator in the filter.
  const payload = Buffer.from(JSON.stringify({ v: 1, q: { verb: { $ne: 'x' }, limit: 100000 }, c: { s: Date.now(), p: 'zzz' } })).toString('base64url')
  assert.equal((await lrs.client(`/statements?more=${payload}`)).status, 400)
  assert.equal((await lrs.client(`/statements?more=${payload}.${'A'.repeat(43)}`)).status, 400)
  assert.equal((await lrs.client('/statements?more=')).status, 400)
  assert.equal((await lrs.client(`/statements?more=${token}x`)).status, 400)
  // The same bytes spelled otherwise: stray characters, padding, the
  // standard alphabet, the last character's unused bits.
  const spellings = [`${token.slice(0, 5)}*${token.slice(5)}`, `${token}=`, token.replace(/-/g, '+').replace(/_/g, '/') + (/[-_]/.test(token) ? '' : '=')]
  if (sealed.length % 3 !== 0) {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    spellings.push(token.slice(0, -1) + alphabet[alphabet.indexOf(token.at(-1)) ^ 1]) // an unused bit
  }
  for (const spelling of spellings) {
    assert.equal(Buffer.from(spelling, 'base64url').equals(sealed), true, 'decodes to the same bytes')
    const res = await lrs.client(`/statements?more=${encodeURIComponent(spelling)}`)
    assert.equal(res.status, 400, spelling)
  }
  assert.equal((await lrs.client(`/statements?more=${token}`)).status, 200, 'the token as issued')
})

test('nothing of the query can be read from a more token: a learner\'s e-mail address stays out of URLs and proxy logs', async () => {
  const lrs = await startLrs({ LRS_STATEMENTS_MAX_LIMIT: '1' })
  const email = `learner-${crypto.randomUUID()}@example.com`
  const actor = { objectType: 'Agent', mbox: `mailto:${email}` }
  for (let i = 0; i < 3; i++) assert.equal((await lrs.client('/statements', { method: 'POST', body: statement({ actor }) })).status, 200)
  const url = `/statements?agent=${encodeURIComponent(JSON.stringify(actor))}`
  const tokens = []
  for (let i = 0; i < 2; i++) {
    const page = await lrs.client(url)
    tokens.push(page.json.more.split('more=')[1])
  }
  for (const token of tokens) {
    const bytes = Buffer.from(token, 'base64url').toString('latin1')
    for (const secret of [email, 'mailto', 'mbox', 'example.com', '"q"']) assert.ok(!bytes.includes(secret) && !token.includes(secret), `the token reveals ${secret}`)
  }
  assert.notEqual(tokens[0], tokens[1], 'two tokens for the same position differ (a fresh nonce each)')
  const next = await lrs.client(`/statements?more=${tokens[0]}`)
  assert.equal(next.status, 200)
  assert.equal(next.json.statements.length, 1)
})

test('query parameters reach storage only as literals: operator-shaped values are 400', async () => {
  const lrs = await startLrs()
  const agentWithOperator = encodeURIComponent(JSON.stringify({ mbox: { $ne: 'mailto:x@example.com' } }))
  for (const q of ['verb[$ne]=x', 'verb=%7B%22%24ne%22%3A1%7D', `agent=${agentWithOperator}`, 'registration[$gt]=0', 'since[$gt]=2020-01-01T00:00:00Z', 'limit[$gt]=0']) {
    const res = await lrs.client(`/statements?${q}`)
    assert.equal(res.status, 400, q)
  }
  const state = await lrs.client(`/activities/state?activityId=http%3A%2F%2Fa.b%2Fc&agent=${agentWithOperator}&stateId=s`)
  assert.equal(state.status, 400)
  const twice = await lrs.client('/activities/state?activityId=http%3A%2F%2Fa.b%2Fc&activityId=http%3A%2F%2Fa.b%2Fd&agent=%7B%22mbox%22%3A%22mailto%3Aa%40b.c%22%7D&stateId=s')
  assert.equal(twice.status, 400)
})

test('integers are digits and document ids are not empty: limit=0x10, 1e9 or " 5" and stateId= are 400', async () => {
  const lrs = await startLrs()
  for (const limit of ['0x10', '1e9', '%205', '5.0', '-1', '']) assert.equal((await lrs.client(`/statements?limit=${limit}`)).status, 400, limit)
  assert.equal((await lrs.client('/statements?limit=5')).status, 200)
  const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:a@example.com' }))
  const at = (id) => `/activities/state?activityId=http%3A%2F%2Fexample.com%2Fa&agent=${agent}&stateId=${id}`
  assert.equal((await lrs.client(at(''), { method: 'PUT', body: { a: 1 } })).status, 400)
  assert.equal((await lrs.client(at('s'), { method: 'PUT', body: { a: 1 } })).status, 204)
})

test('more served with the same parameters beside it; different parameters are 400', async () => {
  const lrs = await startLrs({ LRS_STATEMENTS_MAX_LIMIT: '2' })
  const { verb, ids } = await seed(lrs, 3)
  const original = `verb=${encodeURIComponent(verb)}&ascending=true`
  const first = await lrs.client(`/statements?${original}`)
  const more = first.json.more.split('?')[1]
  const merged = await lrs.client(`/statements?${original}&${more}`)
  assert.equal(merged.status, 200, merged.text)
  assert.deepEqual(merged.json.statements.map((s) => s.id), [ids[2]])
  const other = await lrs.client(`/statements?verb=${encodeURIComponent('http://example.com/other')}&${more}`)
  assert.equal(other.status, 400)
  const extra = await lrs.client(`/statements?${original}&limit=1&${more}`)
  assert.equal(extra.status, 400)
})

test('more tokens work on every worker and after a restart (the key is shared through the database), and pages never exceed the maximum', async () => {
  const a = await startLrs({ LRS_STATEMENTS_MAX_LIMIT: '2' })
  const { verb, ids } = await seed(a, 5)
  const first = await a.client(`/statements?verb=${encodeURIComponent(verb)}&ascending=true`)
  assert.deepEqual(first.json.statements.map((s) => s.id), ids.slice(0, 2))
  // Another worker on the same database, with a smaller maximum.
  const b = await startLrs({ ...a.storeEnv, LRS_STATEMENTS_MAX_LIMIT: '1' })
  const second = await b.client(path(first.json.more))
  assert.equal(second.status, 200, second.text)
  assert.deepEqual(second.json.statements.map((s) => s.id), [ids[2]])
  await a.close({ graceMs: 0 })
  const c = await startLrs({ ...a.storeEnv, LRS_STATEMENTS_MAX_LIMIT: '2' })
  const third = await c.client(path(second.json.more))
  assert.equal(third.status, 200, third.text)
  assert.deepEqual(third.json.statements.map((s) => s.id), [ids[3]])
})

test('every page of one walk reports the Consistent-Through of its first page', async () => {
  const lrs = await startLrs({ LRS_STATEMENTS_MAX_LIMIT: '1' })
  const { verb } = await seed(lrs, 3)
  const first = await lrs.client(`/statements?verb=${encodeURIComponent(verb)}`)
  const through = first.headers.get('x-experience-api-consistent-through')
  const second = await lrs.client(path(first.json.more))
  assert.equal(second.headers.get('x-experience-api-consistent-through'), through)
})
