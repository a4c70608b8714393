'use strict'

// GET /admin/overview: statements stored, per hour, top verbs and object
// activities, per credential, counted over a range of whole hours; the
// counts follow erasure; a bad range is 400, a credential without the
// admin scope 403.

const test = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')

const HOUR_MS = 3600000
const verb = (name) => ({ id: `http://example.com/verbs/${name}`, display: { 'en-US': name } })
const activity = (id) => ({ objectType: 'Activity', id })
const q = (value) => encodeURIComponent(JSON.stringify(value))

test('the overview counts what was posted, by hour, verb, activity and credential, and follows erasure', async () => {
  const lrs = await startLrs()
  const writer = await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'writer-' + crypto.randomUUID().slice(0, 8), secret: 'a-long-enough-secret', scopes: ['statements/write'] } })
  assert.equal(writer.status, 201, writer.text)
  const learner = { objectType: 'Agent', mbox: `mailto:erased-${crypto.randomUUID()}@example.com` }
  const before = Date.now()
  const mine = [
    ...Array.from({ length: 5 }, () => statement({ verb: verb('read'), object: activity('http://example.com/a/one') })),
    ...Array.from({ length: 3 }, () => statement({ verb: verb('wrote'), object: activity('http://example.com/a/two') })),
    statement({ verb: verb('wrote'), object: { objectType: 'Agent', mbox: 'mailto:someone@example.com' } })
  ]
  assert.equal((await lrs.client('/statements', { method: 'POST', body: mine })).status, 200)
  const theirs = [statement({ actor: learner, verb: verb('read'), object: activity('http://example.com/a/one') }), statement({ actor: learner, verb: verb('read'), object: activity('http://example.com/a/one') })]
  assert.equal((await lrs.client('/statements', { method: 'POST', body: theirs, auth: [writer.json.key, 'a-long-enough-secret'] })).status, 200)

  const res = await lrs.http('/admin/overview')
  assert.equal(res.status, 200, res.text)
  const o = res.json
  assert.equal(o.total, 11)
  assert.equal(o.hours.length, 25) // the hours of since and until, whole, and those between
  assert.equal(o.hours.reduce((n, h) => n + h.count, 0), 11)
  assert.equal(o.hours.find((h) => Date.parse(h.start) === Math.floor(before / HOUR_MS) * HOUR_MS).count >= 9, true)
  assert.deepEqual(o.verbs, [{ verb: 'http://example.com/verbs/read', count: 7, display: { 'en-US': 'read' } }, { verb: 'http://example.com/verbs/wrote', count: 4, display: { 'en-US': 'wrote' } }])
  assert.deepEqual(o.activities, [{ activity: 'http://example.com/a/one', count: 7 }, { activity: 'http://example.com/a/two', count: 3 }])
  assert.deepEqual(o.credentials, [{ key: lrs.config.adminUser, count: 9 }, { key: writer.json.key, count: 2 }])

  // a range before anything was stored counts nothing there, the total still all
  const old = await lrs.http(`/admin/overview?since=${new Date(before - 3 * 24 * HOUR_MS).toISOString()}&until=${new Date(before - 2 * 24 * HOUR_MS).toISOString()}`)
  assert.equal(old.status, 200, old.text)
  assert.equal(old.json.total, 11)
  assert.equal(old.json.hours.reduce((n, h) => n + h.count, 0), 0)
  assert.deepEqual([old.json.verbs, old.json.activities, old.json.credentials], [[], [], []])

  // erasure takes its statements out of the counts
  assert.equal((await lrs.http(`/admin/agents?agent=${q(learner)}`, { method: 'DELETE' })).status, 200)
  const after = (await lrs.http('/admin/overview')).json
  assert.equal(after.total, 9)
  assert.deepEqual(after.verbs, [{ verb: 'http://example.com/verbs/read', count: 5, display: { 'en-US': 'read' } }, { verb: 'http://example.com/verbs/wrote', count: 4, display: { 'en-US': 'wrote' } }])
  assert.deepEqual(after.credentials, [{ key: lrs.config.adminUser, count: 9 }])
})

test('each top verb carries the display of the newest statement with it, not voided, as sent (hostile text included); null when it has none', async () => {
  const lrs = await startLrs()
  const hostile = '<img src=x onerror="alert(1)">'
  const post = async (body) => {
    const res = await lrs.client('/statements', { method: 'POST', body })
    assert.equal(res.status, 200, res.text)
  }
  const verbOf = (id, display) => ({ id: `http://example.com/verbs/${id}`, ...(display && { display }) })
  // older, then newer displays: the newest statement's wins
  await post([statement({ verb: verbOf('passed', { 'en-US': 'passed (old)' }) }), statement({ verb: verbOf('passed', { 'en-US': 'passed (old)' }) })])
  await post([statement({ verb: verbOf('passed', { 'fr-FR': 'a réussi', 'en-US': 'passed' }) })])
  await post([statement({ verb: verbOf('plain') })])
  await post([statement({ verb: verbOf('hostile', { 'en-US': hostile }) })])
  // the newest statement with 'hidden' is voided: the one before it names the verb
  const voided = statement({ id: crypto.randomUUID(), verb: verbOf('hidden', { 'en-US': 'voided one' }) })
  await post([statement({ verb: verbOf('hidden', { 'en-US': 'hidden' }) })])
  await post([voided])
  await post([statement({ verb: { id: 'http://adlnet.gov/expapi/verbs/voided', display: { 'en-US': 'voided' } }, object: { objectType: 'StatementRef', id: voided.id } })])

  const res = await lrs.http('/admin/overview')
  assert.equal(res.status, 200, res.text)
  const displays = Object.fromEntries(res.json.verbs.map((v) => [v.verb.replace('http://example.com/verbs/', ''), v.display]))
  assert.deepEqual(displays, {
    passed: { 'fr-FR': 'a réussi', 'en-US': 'passed' },
    hidden: { 'en-US': 'hidden' },
    plain: null,
    hostile: { 'en-US': hostile },
    'http://adlnet.gov/expapi/verbs/voided': { 'en-US': 'voided' }
  })
})

test('the overview refuses a range that is backwards or longer than 7 days (400), and a credential without admin (403)', async () => {
  const lrs = await startLrs()
  const now = Date.now()
  const at = (ms) => new Date(ms).toISOString()
  for (const query of [`since=${at(now)}&until=${at(now - HOUR_MS)}`, `since=${at(now - 8 * 24 * HOUR_MS)}&until=${at(now)}`, 'since=yesterday']) {
    const res = await lrs.http(`/admin/overview?${query}`)
    assert.equal(res.status, 400, query)
    assert.equal(res.json.code, 'LRS_ERR_PARAMETER_INVALID')
  }
  assert.equal((await lrs.http(`/admin/overview?since=${at(now - 7 * 24 * HOUR_MS)}&until=${at(now)}`)).status, 200)
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'not-admin', secret: 'a-long-enough-secret', scopes: ['all'] } })
  assert.equal(made.status, 201)
  assert.equal((await lrs.http('/admin/overview', { auth: ['not-admin', 'a-long-enough-secret'] })).status, 403)
  assert.equal((await lrs.http('/admin/overview', { auth: null })).status, 401)
})
