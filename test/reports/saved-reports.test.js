'use strict'

// Issue 57: saved reports as data. Made, listed, read, changed (If-Match),
// run by id (JSON and CSV, the same as running the report itself) and
// removed, by a `reports` key; each store's own; a report a run would
// refuse is refused when saved.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { storeWithAdmin, postStatements: post } = require('../helpers/stores')

const ADL = 'http://adlnet.gov/expapi/verbs/'
const statement = (verb, n) => ({ id: crypto.randomUUID(), actor: { mbox: `mailto:learner-${n}@example.com` }, verb: { id: ADL + verb }, object: { id: 'http://example.com/course' } })

test('a saved report is made, listed, changed with If-Match, run by id as the report itself runs, and removed; another store never sees it', async () => {
  const lrs = await startLrs()
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['reports'] } })
  const bi = [made.json.key, made.json.secret]
  const as = (path, options = {}) => lrs.http(path, { ...options, auth: bi })
  await post(lrs.client, [statement('completed', 1), statement('completed', 2), statement('attempted', 1)])
  const report = { groupBy: ['verb'], measures: ['statements', 'learners'] }

  const saved = await as('/admin/reports', { method: 'POST', body: { name: 'Per verb', report } })
  assert.equal(saved.status, 201, saved.text)
  assert.equal(saved.json.name, 'Per verb')
  assert.deepEqual(saved.json.report, report)
  const etag = saved.headers.get('etag')
  assert.match(etag, /^"r1"$/)
  const listed = await as('/admin/reports')
  assert.deepEqual(listed.json.reports.map((r) => r.id), [saved.json.id])

  const byId = await as(`/admin/reports/${saved.json.id}/run`, { method: 'POST' })
  const direct = await as('/admin/reports/run', { method: 'POST', body: report })
  assert.equal(byId.status, 200, byId.text)
  assert.deepEqual(byId.json.rows, direct.json.rows)
  assert.deepEqual(byId.json.rows, [[ADL + 'completed', 2, 2], [ADL + 'attempted', 1, 1]])
  const csv = await as(`/admin/reports/${saved.json.id}/run`, { method: 'POST', headers: { Accept: 'text/csv' } })
  assert.equal(csv.text, `verb,statements,learners\r\n${ADL}completed,2,2\r\n${ADL}attempted,1,1\r\n`)

  const changed = await as(`/admin/reports/${saved.json.id}`, { method: 'PUT', body: { name: 'Learners', report: { measures: ['learners'] } }, headers: { 'If-Match': etag } })
  assert.equal(changed.status, 200, changed.text)
  assert.equal(changed.headers.get('etag'), '"r2"')
  const stale = await as(`/admin/reports/${saved.json.id}`, { method: 'PUT', body: { name: 'Again', report }, headers: { 'If-Match': etag } })
  assert.equal(stale.status, 412)
  assert.deepEqual((await as(`/admin/reports/${saved.json.id}/run`, { method: 'POST' })).json.rows, [[2]])

  // what a run would refuse is refused now, naming the field
  const bad = await as('/admin/reports', { method: 'POST', body: { name: 'Bad', report: { measures: ['statements'], timeZone: 'Nowhere/City' } } })
  assert.equal(bad.status, 400)
  assert.match(bad.json.message, /timeZone/)
  assert.equal((await as('/admin/reports', { method: 'POST', body: { report } })).status, 400, 'a name is needed')

  // another store's admin sees none of it
  const other = await storeWithAdmin(lrs, 'other')
  assert.deepEqual((await other.admin('/admin/reports')).json.reports, [])
  assert.equal((await other.admin(`/admin/reports/${saved.json.id}`)).status, 404)
  assert.equal((await other.admin(`/admin/reports/${saved.json.id}/run`, { method: 'POST' })).status, 404)

  assert.equal((await as(`/admin/reports/${saved.json.id}`, { method: 'DELETE' })).status, 204)
  assert.equal((await as(`/admin/reports/${saved.json.id}`)).status, 404)
  assert.deepEqual((await as('/admin/reports')).json.reports, [])
})
