'use strict'

// Real xAPI client libraries, used unchanged against the LRS.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, ADMIN } = require('../helpers/lrs')

const actor = { objectType: 'Agent', name: 'Client Test', mbox: `mailto:client-${crypto.randomUUID()}@example.com` }
const verb = { id: 'http://adlnet.gov/expapi/verbs/experienced', display: { 'en-US': 'experienced' } }

test('xAPI.js (@xapi/xapi) sends, reads and keeps state', async () => {
  const XAPI = require('@xapi/xapi').default || require('@xapi/xapi')
  const lrs = await startLrs()
  for (const version of ['1.0.3', '2.0.0']) {
    const xapi = new XAPI({ endpoint: lrs.url + '/xapi/', auth: XAPI.toBasicAuth(ADMIN.user, ADMIN.password), version })
    const activityId = `http://example.com/xapijs/${crypto.randomUUID()}`
    const sent = await xapi.sendStatement({ statement: { actor, verb, object: { objectType: 'Activity', id: activityId } } })
    const id = sent.data[0]
    const got = await xapi.getStatement({ statementId: id })
    assert.equal(got.data.id, id, version)
    const list = await xapi.getStatements({ activity: activityId })
    assert.deepEqual(list.data.statements.map((s) => s.id), [id], version)
    await xapi.setState({ agent: actor, activityId, stateId: 'bookmark', state: { page: 3 } })
    const state = await xapi.getState({ agent: actor, activityId, stateId: 'bookmark' })
    assert.deepEqual(state.data, { page: 3 }, version)
    const about = await xapi.getAbout()
    assert.ok(about.data.version.includes(version))
  }
})

test('TinCanJS sends and retrieves statements and state', async () => {
  const TinCan = require('tincanjs')
  const lrs = await startLrs()
  const tc = new TinCan.LRS({ endpoint: lrs.url + '/xapi/', username: ADMIN.user, password: ADMIN.password, allowFail: false })
  const activityId = `http://example.com/tincan/${crypto.randomUUID()}`
  const statement = new TinCan.Statement({ actor, verb, target: { id: activityId } })
  await new Promise((resolve, reject) => tc.saveStatement(statement, { callback: (err, xhr) => (err ? reject(new Error(`save ${err} ${xhr && xhr.responseText}`)) : resolve()) }))
  const got = await new Promise((resolve, reject) => tc.retrieveStatement(statement.id, { callback: (err, s) => (err ? reject(new Error(`retrieve ${err}`)) : resolve(s)) }))
  assert.equal(got.id, statement.id)
  const result = await new Promise((resolve, reject) => tc.queryStatements({ params: { activity: new TinCan.Activity({ id: activityId }) }, callback: (err, r) => (err ? reject(new Error(`query ${err}`)) : resolve(r)) }))
  assert.deepEqual(result.statements.map((s) => s.id), [statement.id])
  await new Promise((resolve, reject) => tc.saveState('bookmark', 'page-7', { activity: new TinCan.Activity({ id: activityId }), agent: new TinCan.Agent(actor), callback: (err) => (err ? reject(new Error(`saveState ${err}`)) : resolve()) }))
  const state = await new Promise((resolve, reject) => tc.retrieveState('bookmark', { activity: new TinCan.Activity({ id: activityId }), agent: new TinCan.Agent(actor), callback: (err, s) => (err ? reject(new Error(`retrieveState ${err}`)) : resolve(s)) }))
  assert.equal(state.contents, 'page-7')
})
