'use strict'

// An mbox's domain is case-insensitive and its local part is not (Data
// 2.4.2.3.s4.b1, 2.2.s4.b5): mailto:Ann@Example.org and
// mailto:ann@example.org are two learners, mailto:Ann@EXAMPLE.ORG is the
// first. A store written before this rule keeps the one its keys were made
// with (the whole address in any case).

const crypto = require('node:crypto')
const { test } = require('node:test')
const assert = require('node:assert/strict')
const { MongoClient } = require('mongodb')
const { startLrs, ENGINE } = require('../helpers/lrs')
const { statement, allIds } = require('../helpers/statements')
const { asSchema13 } = require('../helpers/sqlite-files')

const q = (value) => encodeURIComponent(JSON.stringify(value))

// Two learners whose addresses differ only in the case of the local part.
function twoLearners () {
  const local = `Ann.Lee-${crypto.randomUUID().slice(0, 8)}`
  return { upper: `mailto:${local}@Example.org`, lower: `mailto:${local.toLowerCase()}@example.org`, local }
}

async function post (lrs, body) {
  const res = await lrs.client('/statements', { method: 'POST', body })
  assert.equal(res.status, 200, res.text)
  return res.json
}

test('statements: an agent filter finds an mbox whatever the case of its domain, and only with its local part\'s case', async () => {
  const lrs = await startLrs()
  const { upper, lower, local } = twoLearners()
  const [mixed] = await post(lrs, statement({ actor: { mbox: upper } }))
  const [plain] = await post(lrs, statement({ actor: { mbox: lower } }))
  // as the object of another statement, and as its instructor
  const [about] = await post(lrs, statement({ object: { objectType: 'Agent', mbox: upper } }))
  const [taught] = await post(lrs, statement({ context: { instructor: { mbox: `mailto:${local}@EXAMPLE.org` } } }))

  assert.deepEqual(await allIds(lrs, `agent=${q({ mbox: `mailto:${local}@EXAMPLE.ORG` })}`), [about, mixed])
  assert.deepEqual(await allIds(lrs, `agent=${q({ mbox: upper })}&related_agents=true`), [taught, about, mixed])
  assert.deepEqual(await allIds(lrs, `agent=${q({ mbox: `mailto:${local.toLowerCase()}@Example.ORG` })}&related_agents=true`), [plain])
  assert.deepEqual(await allIds(lrs, `agent=${q({ mbox: `mailto:${local.toUpperCase()}@example.org` })}`), [])
})

test('documents: a State document is the same learner\'s whatever the case of the domain, another learner\'s when the local part differs in case', async () => {
  const lrs = await startLrs()
  const { upper, lower, local } = twoLearners()
  const at = (mbox) => `/activities/state?activityId=${encodeURIComponent('http://example.com/course')}&agent=${q({ mbox })}&stateId=bookmark`
  assert.equal((await lrs.client(at(upper), { method: 'PUT', body: { page: 7 } })).status, 204)
  assert.deepEqual((await lrs.client(at(`mailto:${local}@EXAMPLE.org`))).json, { page: 7 })
  assert.equal((await lrs.client(at(lower))).status, 404)
  assert.equal((await lrs.client(at(lower), { method: 'PUT', body: { page: 2 } })).status, 204)
  assert.deepEqual((await lrs.client(at(upper))).json, { page: 7 })
})

test('the same statement id again: a different case of the domain is the same statement, of the local part a conflict (409)', async () => {
  const lrs = await startLrs()
  const { upper, lower, local } = twoLearners()
  const id = crypto.randomUUID()
  const first = statement({ id, actor: { mbox: upper } })
  await post(lrs, first)
  assert.equal((await lrs.client('/statements', { method: 'POST', body: { ...first, actor: { mbox: `mailto:${local}@example.ORG` } } })).status, 200)
  const conflict = await lrs.client('/statements', { method: 'POST', body: { ...first, actor: { mbox: lower } } })
  assert.equal(conflict.status, 409, conflict.text)
  assert.deepEqual((await lrs.client(`/statements?statementId=${id}`)).json.actor, { mbox: upper })
})

test('erasure: erasing an mbox erases it whatever the case of its domain, and not the learner whose local part differs in case', async () => {
  const lrs = await startLrs()
  const { upper, lower, local } = twoLearners()
  const [theirs] = await post(lrs, statement({ actor: { mbox: upper } }))
  const [kept] = await post(lrs, statement({ actor: { mbox: lower } }))
  const erased = await lrs.http(`/admin/agents?agent=${q({ mbox: `mailto:${local}@EXAMPLE.ORG` })}`, { method: 'DELETE' })
  assert.equal(erased.status, 200, erased.text)
  assert.equal(erased.json.removed.statements, 1)
  assert.equal((await lrs.client(`/statements?statementId=${theirs}`)).status, 404)
  assert.deepEqual(await allIds(lrs, `agent=${q({ mbox: lower })}`), [kept])
})

// The store as an older LRS left it: no word on how it keys mboxes.
async function asBeforeTheRule (env) {
  if (ENGINE === 'sqlite') return asSchema13(env.LRS_DATA_DIR).close()
  const client = new MongoClient(env.MONGODB_URI)
  try {
    await client.db(env.MONGODB_DB).collection('settings').deleteOne({ _id: 'mbox_case' })
  } finally {
    await client.close()
  }
}

test('a store written before the rule keeps matching mboxes in any case (its keys were made so); one that held nothing takes the rule', async () => {
  const { local } = twoLearners()
  const lower = `mailto:${local.toLowerCase()}@example.org`
  // what an older LRS wrote: a lower-case address, keyed alike either way
  const first = await startLrs()
  const [old] = await post(first, statement({ actor: { mbox: lower } }))
  const empty = await startLrs()
  const envs = [{ ...first.storeEnv }, { ...empty.storeEnv }]
  await first.close({ graceMs: 0 })
  await empty.close({ graceMs: 0 })
  for (const env of envs) await asBeforeTheRule(env)

  const kept = await startLrs(envs[0])
  const [added] = await post(kept, statement({ actor: { mbox: `mailto:${local}@Example.org` } }))
  assert.deepEqual(await allIds(kept, `agent=${q({ mbox: lower })}`), [added, old])
  assert.deepEqual(await allIds(kept, `agent=${q({ mbox: `mailto:${local.toUpperCase()}@EXAMPLE.ORG` })}`), [added, old])
  await kept.close({ graceMs: 0 })

  const fresh = await startLrs(envs[1])
  const [mixed] = await post(fresh, statement({ actor: { mbox: `mailto:${local}@Example.org` } }))
  assert.deepEqual(await allIds(fresh, `agent=${q({ mbox: lower })}`), [])
  assert.deepEqual(await allIds(fresh, `agent=${q({ mbox: `mailto:${local}@example.ORG` })}`), [mixed])
})
