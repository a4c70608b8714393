'use strict'

// Issue 10 items 2 and 3: authentication happens before the body is read,
// and failed authentication is cheap and bounded.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const net = require('node:net')
const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { startLrs, basic, ADMIN } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { heldRequest } = require('../helpers/held-request')

// Sends the head of a request whose declared body never comes; resolves
// with the status line of the answer.
async function headOnly (url, head) {
  const request = heldRequest(url, head)
  let timer
  const timeout = new Promise((resolve, reject) => { timer = setTimeout(reject, 5000, new Error('no answer while the body was withheld')) })
  try {
    return await Promise.race([request.statusLine, timeout])
  } finally {
    clearTimeout(timer)
    request.close()
  }
}

test('a request without valid credentials gets 401 before its body is sent, let alone read', async () => {
  const lrs = await startLrs()
  for (const auth of ['', `Authorization: ${basic(ADMIN.user, 'wrong')}\r\n`]) {
    const status = await headOnly(lrs.url, 'POST /xapi/statements HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      `X-Experience-API-Version: 1.0.3\r\n${auth}Content-Length: 10000000\r\n\r\n[`)
    assert.match(status, / 401 /)
  }
})

test('anonymous bodies never spend the in-flight byte budget', async () => {
  const lrs = await startLrs({ LRS_MAX_IN_FLIGHT_BYTES: '20000' })
  const { hostname, port } = new URL(lrs.url)
  // Anonymous requests that declare bodies filling the budget and keep
  // sending. Wait until each is answered (401 here) or, where the server
  // would hold it open reading, until it has had ample time to take it in.
  const sockets = []
  const answered = []
  for (let i = 0; i < 4; i++) {
    const socket = net.connect(port, hostname)
    socket.on('error', () => {})
    answered.push(new Promise((resolve) => { socket.once('data', resolve); setTimeout(resolve, 1000) }))
    socket.write('POST /xapi/statements HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 19000\r\n\r\n' + ' '.repeat(9000))
    sockets.push(socket)
  }
  try {
    await Promise.all(answered)
    const body = Array.from({ length: 40 }, () => statement())
    assert.ok(JSON.stringify(body).length > 10000)
    const res = await lrs.client('/statements', { method: 'POST', body })
    assert.equal(res.status, 200, res.text)
  } finally {
    for (const s of sockets) s.destroy()
  }
})

test('repeated failures for a key, or from an address, get 429 with Retry-After; verified credentials keep working', async () => {
  const lrs = await startLrs({ LRS_AUTH_MAX_FAILURES: '3', LRS_AUTH_FAILURE_WINDOW_S: '30' })
  assert.equal((await lrs.client('/statements?limit=1')).status, 200) // the admin header is verified from here on
  const statuses = []
  for (let i = 0; i < 6; i++) statuses.push((await lrs.client('/statements', { auth: [ADMIN.user, `wrong-${i}`] })).status)
  assert.deepEqual(statuses, [401, 401, 401, 429, 429, 429])
  const blocked = await lrs.client('/statements', { auth: [ADMIN.user, 'wrong-again'] })
  assert.equal(blocked.json.code, 'LRS_ERR_OVERLOADED')
  const retryAfter = Number(blocked.headers.get('retry-after'))
  assert.ok(retryAfter > 0 && retryAfter <= 30, `Retry-After ${retryAfter}`)
  // From the same address, with a header verified before: served.
  assert.equal((await lrs.client('/statements?limit=1')).status, 200)
  // An unknown key from the same (now blocked) address is refused without a look.
  assert.equal((await lrs.client('/statements', { auth: ['nobody', 'x'] })).status, 429)
})

test('a change to one credential leaves the verified headers of the others alone, even from an address over its failure limit', async () => {
  const lrs = await startLrs({ LRS_AUTH_MAX_FAILURES: '3', LRS_AUTH_FAILURE_WINDOW_S: '60', LRS_CREDENTIAL_POLL_MS: '50' })
  const created = await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'other', scopes: ['all'] } })
  assert.equal(created.status, 201)
  const other = ['other', created.json.secret]
  assert.equal((await lrs.client('/statements?limit=1', { auth: other })).status, 200)
  assert.equal((await lrs.client('/statements?limit=1')).status, 200)
  for (let i = 0; i < 4; i++) await lrs.client('/statements', { auth: ['nosuch', `bad-${i}`] })
  assert.equal((await lrs.client('/statements', { auth: ['nosuch', 'bad'] })).status, 429, 'this address is over its limit')
  assert.equal((await lrs.http('/admin/credentials/other', { method: 'DELETE' })).status, 204)
  let status = 200
  for (let i = 0; i < 200 && status === 200; i++) status = (await lrs.client('/statements?limit=1', { auth: other })).status
  assert.notEqual(status, 200, 'the revoked credential stopped working')
  assert.equal((await lrs.client('/statements?limit=1')).status, 200, 'the admin header verified before is still served')
})

test('a secret with a zero byte appended is not the secret', async () => {
  const lrs = await startLrs()
  assert.equal((await lrs.client('/statements?limit=1', { auth: [ADMIN.user, ADMIN.password + '\0'] })).status, 401)
  assert.equal((await lrs.client('/statements?limit=1', { auth: [ADMIN.user, ADMIN.password + '\0\0\0'] })).status, 401)
  assert.equal((await lrs.client('/statements?limit=1')).status, 200)
  const created = await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'nul', secret: 'a-long-enough-secret\u0000', scopes: ['all'] } })
  assert.equal(created.status, 400)
})

test('the same wrong secret again is answered from memory, and concurrent first requests share one verification', async () => {
  const lrs = await startLrs({ LRS_AUTH_MAX_FAILURES: '1000' })
  // 30 concurrent first requests with the right secret, 30 with one wrong one:
  // 60 scrypt runs in a row would take seconds on this machine (60 ms each).
  const started = Date.now()
  const results = await Promise.all([
    ...Array.from({ length: 30 }, () => lrs.client('/statements?limit=1')),
    ...Array.from({ length: 30 }, () => lrs.client('/statements?limit=1', { auth: [ADMIN.user, 'wrong'] }))
  ])
  assert.deepEqual([...new Set(results.slice(0, 30).map((r) => r.status))], [200])
  assert.deepEqual([...new Set(results.slice(30).map((r) => r.status))], [401])
  assert.ok(Date.now() - started < 1500, `${Date.now() - started} ms`)
})

test('a flood of wrong secrets queues at most LRS_AUTH_MAX_FAILURES verifications per key and address, and a valid client\'s first verification goes ahead of them', async () => {
  // 30 wrong secrets may be verified, one at a time; a valid client's
  // secret queued behind them would wait for up to 30, one that goes first
  // for the check running at most. The order is taken where it is decided:
  // the keys whose secrets were checked, in order, and how many had been
  // when the valid secret joined the queue. Counted at the client instead,
  // the 401s received before the valid answer also counted the checks made
  // while the valid request waited to be read: 9 and 16 on a loaded CI
  // machine, against bounds of 8 and 14.
  const checked = []
  let checkedWhenQueued = null
  const hooks = {
    secretQueued: (key) => { if (key === 'valid') checkedWhenQueued = checked.length },
    secretChecked: async (key) => { checked.push(key) }
  }
  const lrs = await startLrs({ LRS_TRUST_PROXY: 'true', LRS_AUTH_MAX_FAILURES: '30', LRS_REFUSALS_PER_SECOND: '10000' }, { hooks })
  const created = await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'valid', scopes: ['all'] } })
  assert.equal(created.status, 201)
  // 50 wrong secrets at once from one address; counted only once scrypt
  // had finished, all 50 queued a verification (60 ms each)
  const answers = []
  let firstAnswer
  const answered = new Promise((resolve) => { firstAnswer = resolve })
  const flood = Array.from({ length: 50 }, (_, i) => lrs.client('/statements?limit=1', { auth: [ADMIN.user, `wrong-${i}`], headers: { 'X-Forwarded-For': '10.0.0.1' } })
    .then((r) => { answers.push(r.status); firstAnswer() }))
  await answered
  const valid = await lrs.client('/statements?limit=1', { auth: ['valid', created.json.secret], headers: { 'X-Forwarded-For': '10.0.0.2' } })
  await Promise.all(flood)
  assert.equal(valid.status, 200)
  assert.ok(answers.filter((s) => s === 401).length <= 30, `${answers.filter((s) => s === 401).length} wrong secrets verified`)
  assert.deepEqual([...new Set(answers)].sort(), [401, 429])
  // at most the check running when it joined the queue went before it
  const waitedFor = checked.indexOf('valid') - checkedWhenQueued
  assert.ok(checkedWhenQueued !== null && waitedFor >= 0 && waitedFor <= 1, `the valid secret waited for ${waitedFor} checks after it was queued (${checked.join(', ')})`)
})

test('past the failure limit of a key, an address without failures may still try it once, and an address with failures may not', async () => {
  const lrs = await startLrs({ LRS_TRUST_PROXY: 'true', LRS_AUTH_MAX_FAILURES: '3', LRS_AUTH_FAILURE_WINDOW_S: '30' })
  const from = (address, secret) => lrs.client('/statements?limit=1', { auth: [ADMIN.user, secret], headers: { 'X-Forwarded-For': address } })
  for (let i = 1; i <= 3; i++) assert.equal((await from(`10.0.0.${i}`, `wrong-${i}`)).status, 401)
  // the key is over its limit: a valid client elsewhere still gets in
  assert.equal((await from('10.0.0.9', ADMIN.password)).status, 200)
  // a guess from an address that already failed does not
  const refused = await from('10.0.0.1', 'wrong-again')
  assert.equal(refused.status, 429)
  assert.ok(Number(refused.headers.get('retry-after')) > 0)
  // a new address gets one guess, then no more
  assert.equal((await from('10.0.0.5', 'wrong-5')).status, 401)
  assert.equal((await from('10.0.0.5', 'wrong-6')).status, 429)
})

test('a header another worker of the host verified is served from an address over its failure limit; the shared record is keyed, not a plain hash of the header', async (t) => {
  const shareKey = 'k'.repeat(40)
  const first = await startLrs({ LRS_AUTH_SHARE_KEY: shareKey, LRS_AUTH_MAX_FAILURES: '3' })
  const sameHost = await startLrs({ ...first.storeEnv, LRS_AUTH_SHARE_KEY: shareKey, LRS_AUTH_MAX_FAILURES: '3' })
  const otherKey = await startLrs({ ...first.storeEnv, LRS_AUTH_SHARE_KEY: 'z'.repeat(40), LRS_AUTH_MAX_FAILURES: '3' })
  assert.equal((await first.client('/statements?limit=1')).status, 200) // verified by the first worker
  for (const worker of [sameHost, otherKey]) {
    for (let i = 0; i < 3; i++) assert.equal((await worker.client('/statements?limit=1', { auth: [ADMIN.user, `wrong-${i}`] })).status, 401)
    assert.equal((await worker.client('/statements?limit=1', { auth: [ADMIN.user, 'wrong-3'] })).status, 429, 'this address is over its limit')
  }
  assert.equal((await sameHost.client('/statements?limit=1')).status, 200, 'verified by the other worker: served')
  assert.equal((await otherKey.client('/statements?limit=1')).status, 429, 'a worker of another start (another key) knows nothing of it')
  const dir = path.join(first.storeEnv.LRS_DATA_DIR, 'auth')
  const shared = Buffer.concat(fs.readdirSync(dir).map((name) => fs.readFileSync(path.join(dir, name))))
  assert.ok(shared.length >= 32, 'something was shared')
  assert.ok(!shared.includes(crypto.createHash('sha256').update(basic(ADMIN.user, ADMIN.password)).digest()), 'no plain SHA-256 of the header on disk')
})

test('concurrent wrong secrets for a key this worker has not loaded yet are checked no more than the limit allows', async () => {
  const first = await startLrs()
  // a second worker on the store, which learns of new keys only when a request names one
  const second = await startLrs({ ...first.storeEnv, LRS_CREDENTIAL_POLL_MS: '60000', LRS_AUTH_MAX_FAILURES: '10', LRS_REFUSALS_PER_SECOND: '10000' })
  const created = await first.http('/admin/credentials', { method: 'POST', body: { key: 'fresh', scopes: ['all'] } })
  assert.equal(created.status, 201)
  const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => second.client('/statements?limit=1', { auth: ['fresh', `wrong-${i}`] }).then((r) => r.status)))
  assert.equal(answers.filter((s) => s === 401).length, 10, `answers: ${answers.join(' ')}`)
  assert.equal((await second.client('/statements?limit=1', { auth: ['fresh', created.json.secret] })).status, 429, 'this address is over its limit now')
})
