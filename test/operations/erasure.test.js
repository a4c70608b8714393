'use strict'

// Agent erasure (DELETE /admin/agents, previewed by GET): every statement the agent appears
// in, wherever in the statement, its State and Agent Profile documents,
// attachments only its statements used, and pending forwarding entries;
// statements of others and shared attachments stay; idempotent; the audit
// log line never names the agent.

const test = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { postWithAttachments, attachmentOf } = require('../helpers/multipart')

const agentOf = (name) => ({ objectType: 'Agent', mbox: `mailto:${name}-${crypto.randomUUID()}@example.com` })
const q = (value) => encodeURIComponent(JSON.stringify(value))

test('erasing an agent removes it from everywhere it appears, and only that', async () => {
  const lines = []
  const lrs = await startLrs({ LRS_LOG_LEVEL: 'info', LRS_FORWARD_URLS: 'http://user:pass@127.0.0.1:9/xapi' }, { logLines: lines })
  const learner = agentOf('learner')
  const other = agentOf('other')
  const group = { objectType: 'Group', name: 'team', member: [other, learner] }
  const sub = { objectType: 'SubStatement', actor: other, verb: { id: 'http://example.com/verbs/saw' }, object: { objectType: 'Activity', id: 'http://example.com/a' }, context: { instructor: learner } }
  const his = [
    statement({ actor: learner }),
    statement({ actor: other, verb: { id: 'http://example.com/verbs/mentored' }, object: learner }),
    statement({ actor: group }),
    statement({ actor: other, context: { instructor: learner } }),
    statement({ actor: other, context: { team: { objectType: 'Group', member: [learner] } } }),
    statement({ actor: other, object: sub })
  ]
  const theirs = [statement({ actor: other }), statement({ actor: other, context: { instructor: other } })]
  assert.equal((await lrs.client('/statements', { method: 'POST', body: [...his, ...theirs] })).status, 200)
  const voided = statement({ actor: learner })
  assert.equal((await lrs.client('/statements', { method: 'POST', body: voided })).status, 200)
  const voidedId = (await lrs.client(`/statements?agent=${q(learner)}&limit=1`)).json.statements[0].id
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement({ actor: other, verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: voidedId } }) })).status, 200)

  // attachments: one only the learner's statement uses, one shared with another agent's
  const own = Buffer.from('only the learner ' + crypto.randomUUID())
  const shared = Buffer.from('shared ' + crypto.randomUUID())
  assert.equal((await postWithAttachments(lrs.client, [statement({ actor: learner, attachments: [attachmentOf(own), attachmentOf(shared)] })], [{ content: own }, { content: shared }])).status, 200)
  const keeper = statement({ actor: other, attachments: [attachmentOf(shared)] })
  assert.equal((await postWithAttachments(lrs.client, [keeper], [{ content: shared }])).status, 200)

  // documents
  const stateUrl = (agent, id) => `/activities/state?activityId=http://example.com/course&agent=${q(agent)}&stateId=${id}`
  for (const id of ['bookmark', 'suspend']) assert.equal((await lrs.client(stateUrl(learner, id), { method: 'PUT', body: { at: id } })).status, 204)
  assert.equal((await lrs.client(`/agents/profile?agent=${q(learner)}&profileId=prefs`, { method: 'PUT', body: { lang: 'fr' }, headers: { 'If-None-Match': '*' } })).status, 204)
  assert.equal((await lrs.client(stateUrl(other, 'bookmark'), { method: 'PUT', body: { at: 'x' } })).status, 204)

  // GET: the preview (the console's), which removes nothing
  const preview = await lrs.http(`/admin/agents?agent=${q(learner)}`)
  assert.equal(preview.status, 200, preview.text)
  assert.deepEqual(preview.json.wouldRemove, { statements: his.length + 2, stateDocuments: 2, agentProfileDocuments: 1 })

  const erased = await lrs.http(`/admin/agents?agent=${q(learner)}`, { method: 'DELETE' })
  assert.equal(erased.status, 200, erased.text)
  assert.equal(erased.json.agentDigest, preview.json.agentDigest)
  assert.deepEqual(erased.json.removed, { statements: his.length + 2, attachments: 1, forwardingEntries: his.length + 2, stateDocuments: 2, agentProfileDocuments: 1 })

  // nothing of the learner is left to read
  for (const related of [false, true]) {
    assert.equal((await lrs.client(`/statements?agent=${q(learner)}&related_agents=${related}`)).json.statements.length, 0)
  }
  assert.equal((await lrs.client(`/statements?voidedStatementId=${voidedId}`)).status, 404)
  assert.equal((await lrs.client(stateUrl(learner, 'bookmark'))).status, 404)
  assert.equal((await lrs.client(`/agents/profile?agent=${q(learner)}&profileId=prefs`)).status, 404)
  const all = await lrs.client('/statements?limit=100')
  assert.ok(!all.text.includes(learner.mbox))
  // the other agent keeps everything, the shared attachment included
  assert.equal((await lrs.client(stateUrl(other, 'bookmark'))).status, 200)
  const kept = await lrs.client(`/statements?agent=${q(other)}&attachments=true&limit=100`)
  assert.ok(kept.buffer.includes(shared))
  assert.equal((await lrs.storage.outbox.stats('127.0.0.1:9/xapi')).queued, theirs.length + 2)
  // no identifier of the learner in the audit line
  const audit = lines.find((l) => l.audit === 'agent-erased')
  assert.ok(audit && audit.agentDigest === erased.json.agentDigest)
  assert.ok(!JSON.stringify(lines).includes(learner.mbox))

  const again = await lrs.http(`/admin/agents?agent=${q(learner)}`, { method: 'DELETE' })
  assert.equal(again.status, 200)
  assert.deepEqual(again.json.removed, { statements: 0, attachments: 0, forwardingEntries: 0, stateDocuments: 0, agentProfileDocuments: 0 })
})

test('an agent in each position a statement allows (1.0.3 and 2.0): none of its statements is found by agent or by id afterwards', async () => {
  const lrs = await startLrs()
  const learner = agentOf('learner')
  const other = agentOf('other')
  const activity = { objectType: 'Activity', id: 'http://example.com/a' }
  const sub = (overrides) => ({ objectType: 'SubStatement', actor: other, verb: { id: 'http://example.com/verbs/saw' }, object: activity, ...overrides })
  const team = { objectType: 'Group', member: [other, learner] }
  const positions = {
    actor: { actor: learner },
    'actor Group member': { actor: { objectType: 'Group', name: 'g', member: [learner] } },
    'object Agent': { object: learner },
    'object Group member': { object: team },
    'context instructor': { context: { instructor: learner } },
    'context instructor Group member': { context: { instructor: team } },
    'context team member': { context: { team } },
    'SubStatement actor': { object: sub({ actor: learner }) },
    'SubStatement actor Group member': { object: sub({ actor: team }) },
    'SubStatement object': { object: sub({ object: learner }) },
    'SubStatement object Group member': { object: sub({ object: team }) },
    'SubStatement context instructor': { object: sub({ context: { instructor: learner } }) },
    'SubStatement context team': { object: sub({ context: { team } }) }
  }
  const v2positions = {
    'contextAgents (2.0)': { context: { contextAgents: [{ objectType: 'contextAgent', agent: learner }] } },
    'contextGroups (2.0)': { context: { contextGroups: [{ objectType: 'contextGroup', group: team }] } },
    'SubStatement contextAgents (2.0)': { object: sub({ context: { contextAgents: [{ objectType: 'contextAgent', agent: learner }] } }) }
  }
  const ids = {}
  const post = async (table, version) => {
    const batch = Object.entries(table).map(([name, overrides]) => {
      ids[name] = crypto.randomUUID()
      return statement({ id: ids[name], actor: other, ...overrides })
    })
    const res = await lrs.client('/statements', { method: 'POST', body: batch, version })
    assert.equal(res.status, 200, res.text)
  }
  await post(positions, '1.0.3')
  await post(v2positions, '2.0.0')
  const kept = statement({ id: crypto.randomUUID(), actor: other, context: { instructor: other } })
  assert.equal((await lrs.client('/statements', { method: 'POST', body: kept })).status, 200)
  for (const [name, id] of Object.entries(ids)) assert.equal((await lrs.client(`/statements?statementId=${id}`)).status, 200, name)

  const erased = await lrs.http(`/admin/agents?agent=${q({ mbox: learner.mbox })}`, { method: 'DELETE' })
  assert.equal(erased.status, 200, erased.text)
  assert.equal(erased.json.removed.statements, Object.keys(ids).length)
  for (const [name, id] of Object.entries(ids)) {
    assert.equal((await lrs.client(`/statements?statementId=${id}`)).status, 404, name)
    assert.equal((await lrs.client(`/statements?voidedStatementId=${id}`)).status, 404, name)
  }
  for (const related of [false, true]) {
    assert.deepEqual((await lrs.client(`/statements?agent=${q(learner)}&related_agents=${related}`)).json.statements, [])
  }
  const left = await lrs.client(`/statements?agent=${q(other)}&limit=100`)
  assert.deepEqual(left.json.statements.map((s) => s.id), [kept.id])
})

test('erasure keeps statements in which the agent is only the authority', async () => {
  const lrs = await startLrs()
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'lms', secret: 'a-long-enough-secret', scopes: ['all'] } })
  assert.equal(made.status, 201)
  const s = statement()
  assert.equal((await lrs.client('/statements', { method: 'POST', body: s, auth: ['lms', 'a-long-enough-secret'] })).status, 200)
  const authority = { objectType: 'Agent', account: { homePage: lrs.config.authorityHomePage, name: 'lms' } }
  const res = await lrs.http(`/admin/agents?agent=${q(authority)}`, { method: 'DELETE' })
  assert.equal(res.status, 200)
  assert.equal(res.json.removed.statements, 0)
  assert.equal((await lrs.client(`/statements?agent=${q(s.actor)}`)).json.statements.length, 1)
})

test('a bad or missing agent is 400, and erasure needs the admin scope', async () => {
  const lrs = await startLrs()
  for (const query of ['', '?agent=nope', `?agent=${q({ mbox: 'not-a-mailto' })}`, `?agent=${q(agentOf('x'))}&extra=1`]) {
    const res = await lrs.http(`/admin/agents${query}`, { method: 'DELETE' })
    assert.equal(res.status, 400, query)
    assert.equal(res.json.error, true)
  }
  assert.equal((await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'all', secret: 'a-long-enough-secret', scopes: ['all'] } })).status, 201)
  assert.equal((await lrs.http(`/admin/agents?agent=${q(agentOf('x'))}`, { method: 'DELETE', auth: ['all', 'a-long-enough-secret'] })).status, 403)
})
