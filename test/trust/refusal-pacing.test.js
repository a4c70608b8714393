'use strict'

// Cheap refusals: past LRS_REFUSALS_PER_SECOND, a refusal's answer is held
// (src/http/refusal-pacing.js), so clients that retry at once without
// honouring Retry-After are paced; accepted requests are never held.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { startLrs, ADMIN } = require('../helpers/lrs')

// Sends `n` requests at once; each answer with the ms it took.
async function burst (lrs, n, options) {
  const started = Date.now()
  return Promise.all(Array.from({ length: n }, (_, i) => lrs.client('/statements?limit=1', typeof options === 'function' ? options(i) : options)
    .then((r) => ({ status: r.status, headers: r.headers, json: r.json, ms: Date.now() - started }))))
}

test('past LRS_REFUSALS_PER_SECOND, 401s are answered late (held, not spun), each still a 401 with WWW-Authenticate', async () => {
  const lrs = await startLrs({ LRS_REFUSALS_PER_SECOND: '5', LRS_REFUSAL_HOLD_MAX_MS: '1500', LRS_AUTH_MAX_FAILURES: '1000' })
  const answers = await burst(lrs, 20, { auth: [ADMIN.user, 'wrong'] })
  assert.deepEqual([...new Set(answers.map((a) => a.status))], [401])
  assert.ok(answers.every((a) => a.headers.get('www-authenticate') === 'Basic realm="xAPI"'))
  const ms = answers.map((a) => a.ms).sort((a, b) => a - b)
  // a second's budget (5) at once, then 5 a second, until the longest hold
  assert.ok(ms[4] < 1000, `the first five took ${ms[4]} ms`)
  assert.ok(ms[12] >= 900, `the 13th refusal came after ${ms[12]} ms`)
  assert.ok(ms[19] >= 1400 && ms[19] < 3000, `the last refusal came after ${ms[19]} ms`)
})

test('held 429s keep their Retry-After and catalogue body, and accepted requests are not held meanwhile', async () => {
  const lrs = await startLrs({ LRS_REFUSALS_PER_SECOND: '2', LRS_REFUSAL_HOLD_MAX_MS: '2000', LRS_AUTH_MAX_FAILURES: '1' })
  assert.equal((await lrs.client('/statements?limit=1')).status, 200) // the admin header is verified
  const refusals = burst(lrs, 12, (i) => ({ auth: [ADMIN.user, `wrong-${i}`] }))
  await new Promise((resolve) => setTimeout(resolve, 300))
  const started = Date.now()
  assert.equal((await lrs.client('/statements?limit=1')).status, 200)
  assert.ok(Date.now() - started < 1000, `an accepted request took ${Date.now() - started} ms`)
  const answers = await refusals
  const tooMany = answers.filter((a) => a.status === 429)
  assert.ok(tooMany.length >= 10, JSON.stringify(answers.map((a) => a.status)))
  for (const a of tooMany) {
    assert.ok(Number(a.headers.get('retry-after')) >= 1)
    assert.equal(a.json.code, 'LRS_ERR_OVERLOADED')
  }
  assert.ok(Math.max(...answers.map((a) => a.ms)) >= 1500, 'refusals past the budget were held')
})
