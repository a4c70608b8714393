'use strict'

// Issue 10 item 4: a 409 never removes acknowledged data, whatever the
// interleaving of requests, batches and workers. Two LRS instances on one
// database stand for two workers; hooks pause one between two steps of its
// write (engines without such a step never pause there).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { gate } = require('../helpers/gate')

const post = (lrs, body) => lrs.client('/statements', { method: 'POST', body })
const get = (lrs, id) => lrs.client(`/statements?statementId=${id}`)

// Y stored; then [X, Y'] (Y' conflicts with Y) and [X] race.
async function scenario (a) {
  const y = statement({ id: crypto.randomUUID() })
  assert.equal((await post(a, y)).status, 200)
  const x = statement({ id: crypto.randomUUID() })
  const yChanged = { ...y, verb: { id: 'http://example.com/verbs/changed' } }
  return { x, y, yChanged }
}

test('a request answered on a copy another batch inserted keeps it when that batch fails (409)', async () => {
  const settle = gate()
  const a = await startLrs({}, { hooks: { beforeSettle: () => settle.wait() } })
  const b = await startLrs({ ...a.storeEnv })
  const { x, yChanged } = await scenario(a)
  const failing = post(a, [x, yChanged])
  await Promise.race([settle.reached, failing]) // A has inserted X and holds before settling
  const ok = await post(b, [x])
  assert.equal(ok.status, 200, ok.text)
  settle.open()
  assert.equal((await failing).status, 409)
  const stored = await get(b, x.id)
  assert.equal(stored.status, 200, 'the acknowledged statement is still there')
  assert.equal(stored.json.actor.mbox, x.actor.mbox)
})

test('a request whose copy was removed meanwhile stores its statement again before answering', async () => {
  const settle = gate()
  const confirm = gate()
  const a = await startLrs({}, { hooks: { beforeSettle: () => settle.wait() } })
  const b = await startLrs({ ...a.storeEnv }, { hooks: { beforeConfirm: () => confirm.wait() } })
  const { x, yChanged } = await scenario(a)
  const failing = post(a, [x, yChanged])
  await Promise.race([settle.reached, failing])
  const succeeding = post(b, [x])
  await Promise.race([confirm.reached, succeeding]) // B found A's copy of X and holds before relying on it
  settle.open()
  assert.equal((await failing).status, 409) // A removes its copy of X
  confirm.open()
  const ok = await succeeding
  assert.equal(ok.status, 200, ok.text)
  const stored = await get(a, x.id)
  assert.equal(stored.status, 200, 'the acknowledged statement is stored')
  assert.equal(stored.json.actor.mbox, x.actor.mbox)
})

test('a conflict storm across two workers loses nothing acknowledged', async () => {
  // Errors either worker logs go into the failure messages: a 500 here
  // (seen once in a CI-like run on mongodb, never again in 12 runs) says
  // nothing about its cause otherwise.
  const logLines = []
  const a = await startLrs({ LRS_LOG_LEVEL: 'error' }, { logLines })
  const b = await startLrs({ ...a.storeEnv, LRS_LOG_LEVEL: 'error' }, { logLines })
  const logged = () => logLines.map((l) => `${l.msg}: ${l.err ? l.err.stack || l.err.message : ''}`).join('\n')
  const acknowledged = new Map() // id -> actor mbox of the content answered 200
  const rounds = []
  for (let i = 0; i < 24; i++) {
    rounds.push((async () => {
      const { x, yChanged } = await scenario(i % 2 ? a : b)
      const others = Array.from({ length: 10 }, () => statement({ id: crypto.randomUUID() }))
      // Half the rounds race X against the same X, half against a different X.
      const rival = i % 4 < 2 ? x : { ...x, actor: { mbox: `mailto:rival-${i}@example.com` } }
      const [big, small] = await Promise.all([post(i % 2 ? a : b, [x, ...others, yChanged]), post(i % 2 ? b : a, [rival])])
      assert.equal(big.status, 409, `${big.text}\n${logged()}`)
      assert.ok(small.status === 200 || small.status === 409, `${small.status} ${small.text}\n${logged()}`)
      if (small.status === 200) acknowledged.set(x.id, rival.actor.mbox)
      const leftovers = await Promise.all(others.map((o) => get(a, o.id)))
      assert.deepEqual([...new Set(leftovers.map((r) => r.status))], [404], 'nothing of the failed request stays')
    })())
  }
  await Promise.all(rounds)
  assert.ok(acknowledged.size > 0)
  for (const [id, mbox] of acknowledged) {
    const stored = await get(b, id)
    assert.equal(stored.status, 200, `acknowledged ${id} is stored`)
    assert.equal(stored.json.actor.mbox, mbox, 'with the content that was acknowledged')
  }
})

test('a lock the database does not free in time answers 503 with Retry-After, not 500', async (t) => {
  const a = await startLrs({}, { hooks: { lockWaitMs: 300 } })
  if (a.storage.engine !== 'ferretdb') return t.skip('only FerretDB writes under a lock')
  const { yChanged } = await scenario(a)
  const other = statement({ id: crypto.randomUUID() })
  // A lock that outlives the wait, as when the database answers nothing.
  await a.storage.internals.db.collection('locks').insertOne({ _id: `statements:${other.id}`, owner: 'stuck', expiresAt: new Date(Date.now() + 60000) })
  const res = await post(a, [other, yChanged])
  assert.equal(res.status, 503, res.text)
  assert.equal(res.headers.get('retry-after'), '1')
  assert.equal(res.json.code, 'LRS_ERR_DATABASE_UNAVAILABLE')
})
