'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')

const VOIDED = 'http://adlnet.gov/expapi/verbs/voided'

test('reading statements', async (t) => {
  const lrs = await startLrs({ LRS_STATEMENTS_MAX_LIMIT: '3' })
  const xapi = lrs.client
  const post = async (body, version) => {
    const res = await xapi('/statements', { method: 'POST', body, version })
    assert.equal(res.status, 200, res.text)
    return res.json
  }

  const verb = `http://example.com/verbs/${crypto.randomUUID()}`
  const ids = []
  for (let i = 0; i < 7; i++) ids.push(...await post(statement({ verb: { id: verb } })))

  await t.test('pages follow stored order, newest first, and `more` walks every statement exactly once (Communication 2.1.3)', async () => {
    const seen = []
    let url = `/statements?verb=${encodeURIComponent(verb)}&limit=2`
    let pages = 0
    while (url) {
      const res = await xapi(url)
      assert.equal(res.status, 200)
      seen.push(...res.json.statements.map((s) => s.id))
      assert.ok(res.json.more === '' || res.json.more.startsWith('/xapi/statements?more='))
      url = res.json.more ? res.json.more.replace(/^\/xapi/, '') : ''
      pages++
      if (pages === 1) await post(statement({ verb: { id: verb } })) // arrives mid-paging, newer than page 1
    }
    assert.deepEqual(seen, [...ids].reverse())
    assert.equal(pages, 4)
  })

  await t.test('ascending=true returns oldest first', async () => {
    const res = await xapi(`/statements?verb=${encodeURIComponent(verb)}&ascending=true&limit=2`)
    assert.deepEqual(res.json.statements.map((s) => s.id), ids.slice(0, 2))
  })

  await t.test('limit=0 and large limits mean the server maximum', async () => {
    const res = await xapi(`/statements?verb=${encodeURIComponent(verb)}&limit=0`)
    assert.equal(res.json.statements.length, 3)
    assert.notEqual(res.json.more, '')
  })

  await t.test('agent, activity, registration and related_* filters', async () => {
    const registration = crypto.randomUUID()
    const mbox = `mailto:${crypto.randomUUID()}@example.com`
    const activity = `http://example.com/a/${crypto.randomUUID()}`
    const [asActor] = await post(statement({ actor: { mbox } }))
    const [asInstructor] = await post(statement({ context: { instructor: { mbox }, registration, contextActivities: { parent: [{ id: activity }] } } }))
    const agent = encodeURIComponent(JSON.stringify({ mbox }))
    assert.deepEqual((await xapi(`/statements?agent=${agent}`)).json.statements.map((s) => s.id), [asActor])
    assert.deepEqual((await xapi(`/statements?agent=${agent}&related_agents=true`)).json.statements.map((s) => s.id), [asInstructor, asActor])
    assert.deepEqual((await xapi(`/statements?registration=${registration}`)).json.statements.map((s) => s.id), [asInstructor])
    assert.deepEqual((await xapi(`/statements?activity=${encodeURIComponent(activity)}`)).json.statements, [])
    assert.deepEqual((await xapi(`/statements?activity=${encodeURIComponent(activity)}&related_activities=true`)).json.statements.map((s) => s.id), [asInstructor])
  })

  await t.test('since and until bound `stored`', async () => {
    const first = await xapi(`/statements?statementId=${ids[0]}`)
    const last = await xapi(`/statements?statementId=${ids[6]}`)
    const range = `verb=${encodeURIComponent(verb)}&since=${encodeURIComponent(first.json.stored)}&until=${encodeURIComponent(last.json.stored)}`
    const oldestFirst = await xapi(`/statements?${range}&ascending=true`)
    assert.equal(oldestFirst.json.statements[0].id, ids[1], 'since is exclusive')
    const newestFirst = await xapi(`/statements?${range}`)
    assert.equal(newestFirst.json.statements[0].id, ids[6], 'until is inclusive')
  })

  await t.test('bad parameters are 400: unknown, wrong case, malformed, or mixed with statementId (Communication 3.2)', async () => {
    for (const q of ['foo=bar', 'LIMIT=1', 'limit=-1', 'verb=notaniri', 'agent=%7Bbad', 'registration=nope', `statementId=${ids[0]}&verb=${encodeURIComponent(verb)}`, 'format=fancy', 'since=yesterday']) {
      const res = await xapi(`/statements?${q}`)
      assert.equal(res.status, 400, q)
      assert.ok(res.headers.get('x-experience-api-consistent-through'), q)
    }
  })

  await t.test('voiding hides the target from queries and statementId, but voidedStatementId returns it (Data 2.3.2)', async () => {
    const [target] = await post(statement({ verb: { id: verb } }))
    const [voiding] = await post(statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: target } }))
    assert.equal((await xapi(`/statements?statementId=${target}`)).status, 404)
    const voided = await xapi(`/statements?voidedStatementId=${target}`)
    assert.equal(voided.status, 200)
    assert.equal(voided.json.id, target)
    const page = await xapi(`/statements?verb=${encodeURIComponent(verb)}&limit=3`)
    assert.ok(!page.json.statements.some((s) => s.id === target))
    // Communication 2.1.4: the voiding statement matches a filter its target matches.
    assert.equal(page.json.statements[0].id, voiding)
    // A voiding statement cannot be voided: voiding it leaves it visible.
    await post(statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: voiding } }))
    assert.equal((await xapi(`/statements?statementId=${voiding}`)).status, 200)
  })

  await t.test('a voiding statement whose target is unknown is accepted (2.0 §4.2.4.1)', async () => {
    const res = await xapi('/statements', { method: 'POST', body: statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: crypto.randomUUID() } }), version: '2.0.0' })
    assert.equal(res.status, 200)
  })

  // Data 2.3.2.s2.b3: voided whenever the LRS contains a voiding statement
  // for it, whichever arrived first.
  await t.test('a statement whose voiding statement arrived first is voided when it is stored', async () => {
    const lateVerb = `http://example.com/verbs/${crypto.randomUUID()}`
    const target = crypto.randomUUID()
    const [voiding] = await post(statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: target } }))
    assert.equal((await xapi(`/statements?voidedStatementId=${target}`)).status, 404)
    assert.deepEqual(await post(statement({ id: target, verb: { id: lateVerb } })), [target])
    assert.equal((await xapi(`/statements?statementId=${target}`)).status, 404)
    const voided = await xapi(`/statements?voidedStatementId=${target}`)
    assert.equal(voided.status, 200)
    assert.equal(voided.json.verb.id, lateVerb)
    const page = await xapi(`/statements?verb=${encodeURIComponent(lateVerb)}`)
    assert.deepEqual(page.json.statements.map((s) => s.id), [voiding])
  })

  await t.test('a voiding statement voided before it arrived stays visible; a StatementRef that arrived first still links its target (Communication 2.1.4)', async () => {
    const lateVerb = `http://example.com/verbs/${crypto.randomUUID()}`
    const first = crypto.randomUUID()
    await post(statement({ verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: first } }))
    await post(statement({ id: first, verb: { id: VOIDED }, object: { objectType: 'StatementRef', id: crypto.randomUUID() } }))
    assert.equal((await xapi(`/statements?statementId=${first}`)).status, 200)

    const target = crypto.randomUUID()
    const [referencing] = await post(statement({ object: { objectType: 'StatementRef', id: target } }))
    await post(statement({ id: target, verb: { id: lateVerb } }))
    const page = await xapi(`/statements?verb=${encodeURIComponent(lateVerb)}`)
    assert.deepEqual(page.json.statements.map((s) => s.id).sort(), [target, referencing].sort())
  })

  await t.test('format=ids keeps only identifiers; canonical keeps one language by Accept-Language', async () => {
    const [id] = await post(statement({
      verb: { id: verb, display: { 'en-US': 'did', 'fr-FR': 'a fait' } },
      object: { id: 'http://example.com/a/lang', definition: { name: { 'en-US': 'Lesson', 'fr-FR': 'Leçon' } } }
    }))
    const ids = await xapi(`/statements?statementId=${id}&format=ids`, { version: '2.0.0' })
    assert.deepEqual(ids.json.verb, { id: verb })
    assert.deepEqual(ids.json.object, { id: 'http://example.com/a/lang' })
    assert.equal(Object.keys(ids.json.actor).length, 2)
    const fr = await xapi(`/statements?statementId=${id}&format=canonical`, { headers: { 'Accept-Language': 'fr-FR' } })
    assert.deepEqual(fr.json.verb.display, { 'fr-FR': 'a fait' })
    assert.deepEqual(fr.json.object.definition.name, { 'fr-FR': 'Leçon' })
    const exact = await xapi(`/statements?statementId=${id}`)
    assert.equal(Object.keys(exact.json.verb.display).length, 2)
  })

  await t.test('HEAD answers like GET without a body (Communication 1.1)', async () => {
    const res = await xapi(`/statements?statementId=${ids[0]}`, { method: 'HEAD' })
    assert.equal(res.status, 200)
    assert.equal(res.text, '')
  })

  await t.test('unknown statementId is 404', async () => {
    assert.equal((await xapi(`/statements?statementId=${crypto.randomUUID()}`)).status, 404)
  })
})
