'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawn } = require('node:child_process')
const { startLrs, freshStore, ADMIN, basic } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { freePort } = require('../../tools/free-port')
const { upstreamLrs } = require('../helpers/upstream-lrs')
const { until } = require('../helpers/wait')

const upstream = upstreamLrs

async function forwardingLrs (t, up, env = {}) {
  t.after(() => up.server.close())
  return startLrs({ LRS_FORWARD_URLS: up.url, ...env })
}

test('stored statements reach the upstream with their ids and its credentials, and the outbox empties', async (t) => {
  const up = await upstream()
  const lrs = await forwardingLrs(t, up)
  const res = await lrs.client('/statements', { method: 'POST', body: [statement(), statement()] })
  assert.equal(res.status, 200)
  assert.ok(await until(() => res.json.every((id) => up.received.some((s) => s.id === id))), 'delivered')
  assert.equal(up.requests[0].url, '/xapi/statements')
  assert.equal(up.requests[0].auth, basic('fwd', 'pw'))
  assert.ok(up.received.every((s) => s.stored && s.authority), 'as stored, with stored and authority')
  assert.ok(await until(async () => (await lrs.storage.outbox.stats(up.id)).queued === 0), 'outbox emptied')
})

test('a failing upstream neither fails nor holds up ingest; entries wait and go once it recovers', async (t) => {
  const up = await upstream(() => 503)
  const lrs = await forwardingLrs(t, up)
  const res = await lrs.client('/statements', { method: 'POST', body: statement() })
  assert.equal(res.status, 200)
  assert.ok(await until(() => up.requests.length >= 1), 'an attempt was made')
  assert.equal((await lrs.storage.outbox.stats(up.id)).queued, 1, 'the entry waits')
  up.server.answer = () => 200
  assert.ok(await until(() => up.received.some((s) => s.id === res.json[0])), 'delivered after recovery')
})

test('an upstream 4xx other than 408/409/429 moves the batch to dead letters, which admins list and replay', async (t) => {
  const up = await upstream(() => 400)
  const lrs = await forwardingLrs(t, up)
  const ids = (await lrs.client('/statements', { method: 'POST', body: [statement(), statement()] })).json
  const admin = (p, init = {}) => fetch(lrs.url + p, { ...init, headers: { Authorization: basic(ADMIN.user, ADMIN.password), 'Content-Type': 'application/json' } })
  let list
  assert.ok(await until(async () => {
    list = await (await admin('/admin/forwarding/dead-letters')).json()
    return list.deadLetters.length === 2
  }), 'dead letters listed')
  assert.deepEqual(list.deadLetters.map((d) => d.statementId).sort(), [...ids].sort())
  assert.equal(list.deadLetters[0].status, 400)
  assert.equal(list.deadLetters[0].upstream, up.id)
  assert.ok(await until(async () => (await lrs.storage.outbox.stats(up.id)).queued === 0), 'no longer in the outbox')
  const attempts = up.requests.length
  up.server.answer = () => 200
  const replay = await admin('/admin/forwarding/dead-letters/replay', { method: 'POST', body: '{}' })
  assert.deepEqual(await replay.json(), { replayed: 2 })
  assert.ok(await until(() => ids.every((id) => up.received.some((s) => s.id === id))), 'delivered after replay')
  assert.ok(up.requests.length > attempts)
  // The xAPI credential `all` does not reach /admin.
  assert.equal((await fetch(lrs.url + '/admin/forwarding/dead-letters', { headers: { Authorization: basic('nobody', 'x') } })).status, 401)
})

test('dead letters discarded are gone for good, for the upstream named only; their statements stay stored and are not forwarded again', async (t) => {
  const up = await upstream(() => 400)
  const lrs = await forwardingLrs(t, up)
  const ids = (await lrs.client('/statements', { method: 'POST', body: [statement(), statement(), statement()] })).json
  const admin = (p, init = {}) => fetch(lrs.url + p, { ...init, headers: { Authorization: basic(ADMIN.user, ADMIN.password), 'Content-Type': 'application/json' } })
  const listed = async () => (await (await admin('/admin/forwarding/dead-letters')).json()).deadLetters
  assert.ok(await until(async () => (await listed()).length === 3), 'dead letters listed')
  // another upstream's name discards nothing
  assert.deepEqual(await (await admin('/admin/forwarding/dead-letters/discard', { method: 'POST', body: JSON.stringify({ upstream: 'elsewhere.example/xapi' }) })).json(), { discarded: 0 })
  assert.equal((await listed()).length, 3)
  const one = await admin('/admin/forwarding/dead-letters/discard?limit=1', { method: 'POST', body: JSON.stringify({ upstream: up.id }) })
  assert.equal(one.status, 200)
  assert.deepEqual(await one.json(), { discarded: 1 })
  assert.equal((await listed()).length, 2)
  assert.deepEqual(await (await admin('/admin/forwarding/dead-letters/discard', { method: 'POST', body: '{}' })).json(), { discarded: 2 })
  assert.deepEqual(await listed(), [])
  assert.equal((await lrs.storage.outbox.stats(up.id)).deadLetters, 0)
  for (const id of ids) assert.equal((await lrs.client(`/statements?statementId=${id}`)).status, 200, 'the statement stays stored')
  const attempts = up.requests.length
  up.server.answer = () => 200
  assert.deepEqual(await (await admin('/admin/forwarding/dead-letters/replay', { method: 'POST', body: '{}' })).json(), { replayed: 0 })
  await new Promise((resolve) => setTimeout(resolve, 300))
  assert.equal(up.requests.length, attempts, 'nothing is forwarded again')
  assert.equal((await admin('/admin/forwarding/dead-letters/discard?limit=0', { method: 'POST' })).status, 400)
  assert.equal((await fetch(lrs.url + '/admin/forwarding/dead-letters/discard', { method: 'POST', headers: { Authorization: basic('nobody', 'x') } })).status, 401)
})

test('a statement sent again after it was delivered (a retry of a request whose answer was lost) is not delivered again', async (t) => {
  const up = await upstream()
  // no clock skew between hosts and a short margin: "stored well before" is 50 ms here
  const lrs = await forwardingLrs(t, up, { LRS_CLOCK_SKEW_MS: '0', LRS_CONSISTENCY_MARGIN_MS: '50' })
  const once = [statement({ id: crypto.randomUUID() }), statement({ id: crypto.randomUUID() })]
  const first = await lrs.client('/statements', { method: 'POST', body: once })
  assert.equal(first.status, 200)
  assert.ok(await until(async () => once.every((s) => up.received.some((r) => r.id === s.id)) && (await lrs.storage.outbox.stats(up.id)).queued === 0), 'delivered, outbox empty')
  // sent again, with one statement new beside them
  const fresh = statement({ id: crypto.randomUUID() })
  const again = await lrs.client('/statements', { method: 'POST', body: [...once, fresh] })
  assert.equal(again.status, 200)
  assert.ok(await until(() => up.received.some((r) => r.id === fresh.id)), 'the new one delivered')
  assert.ok(await until(async () => (await lrs.storage.outbox.stats(up.id)).queued === 0), 'outbox empty')
  for (const s of once) assert.equal(up.received.filter((r) => r.id === s.id).length, 1, `${s.id} delivered once`)
})

test('an upstream 409 is resolved per statement: the rest of the batch is delivered', async (t) => {
  const poison = crypto.randomUUID()
  const up = await upstream((list) => (list.some((s) => s.id === poison) ? 409 : 200))
  const lrs = await forwardingLrs(t, up)
  const others = [statement(), statement(), statement()]
  const res = await lrs.client('/statements', { method: 'POST', body: [...others, statement({ id: poison })] })
  assert.equal(res.status, 200)
  const delivered = res.json.filter((id) => id !== poison)
  assert.ok(await until(() => delivered.every((id) => up.received.some((s) => s.id === id))), 'the other statements are delivered')
  assert.ok(await until(async () => (await lrs.storage.outbox.listDeadLetters({ upstreams: [up.id], limit: 10 })).some((d) => d.statementId === poison && d.status === 409)))
  assert.ok(await until(async () => (await lrs.storage.outbox.stats(up.id)).queued === 0))
})

test('kill -9 of a worker while it forwards loses no forward: every acknowledged statement reaches the upstream', async (t) => {
  const up = await upstream(() => 503)
  t.after(() => up.server.close())
  const store = freshStore()
  t.after(() => fs.rmSync(store.LRS_DATA_DIR, { recursive: true, force: true }))
  const port = await freePort()
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    ...store,
    LRS_ADMIN_USER: ADMIN.user,
    LRS_ADMIN_PASSWORD: ADMIN.password,
    LRS_FORWARD_URLS: up.url,
    LRS_FORWARD_TIMEOUT_MS: '1000',
    LRS_LOG_LEVEL: 'silent'
  }
  const worker = spawn(process.execPath, [path.join(__dirname, '../../src/server.js')], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] })
  t.after(() => worker.kill('SIGKILL'))
  await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('exit', reject) })
  const acknowledged = []
  let posting = true
  const clients = Array.from({ length: 4 }, async () => {
    while (posting && acknowledged.length < 150) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/xapi/statements`, {
          method: 'POST',
          headers: { Authorization: basic(ADMIN.user, ADMIN.password), 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' },
          body: JSON.stringify(Array.from({ length: 5 }, () => statement()))
        })
        if (res.status === 200) acknowledged.push(...await res.json())
      } catch {
        return // the worker is gone
      }
    }
  })
  assert.ok(await until(() => acknowledged.length >= 100 && up.requests.length >= 1), 'ingesting while forwarding is attempted')
  up.server.answer = () => 200
  assert.ok(await until(() => up.received.length > 0), 'forwarding under way')
  worker.kill('SIGKILL')
  posting = false
  await Promise.all(clients)
  const lrs = await startLrs({ ...store, LRS_FORWARD_URLS: up.url, LRS_FORWARD_TIMEOUT_MS: '1000' })
  assert.ok(await until(() => acknowledged.every((id) => up.received.some((s) => s.id === id)), { within: 40000 }),
    `${acknowledged.filter((id) => !up.received.some((s) => s.id === id)).length} of ${acknowledged.length} acknowledged statements never forwarded`)
  assert.ok(lrs)
})
