'use strict'

// Issue 11: every GET /statements shape the reader can produce is served by
// an index in `stored` order, on each engine.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, ENGINE } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { statementQuery } = require('../../src/storage/statement-query')
const { statementFilter } = require('../../src/storage/mongodb/statement-filter')
const { STATEMENT_INDEXES } = require('../../src/storage/mongodb/indexes')

// Every combination of the filters, the related_* forms, a time range, the
// direction, a keyset position and the statements/read/mine restriction.
function* shapes (values) {
  const filters = ['agent', 'verb', 'activity', 'registration']
  for (let mask = 0; mask < 16; mask++) {
    const chosen = filters.filter((_, i) => mask & (1 << i))
    for (const relatedAgents of chosen.includes('agent') ? [false, true] : [false]) {
      for (const relatedActivities of chosen.includes('activity') ? [false, true] : [false]) {
        for (const timed of [false, true]) {
          for (const ascending of [false, true]) {
            for (const mine of [false, true]) {
              for (const after of [false, true]) {
                const q = { relatedAgents, relatedActivities, ascending, limit: 11 }
                for (const f of chosen) q[f] = values[f]
                if (timed) { q.since = new Date(Date.now() - 86400000); q.until = new Date(Date.now() + 86400000) }
                if (mine) q.authorityKey = values.authorityKey
                if (after) q.after = { stored: new Date(), position: values.position }
                yield statementQuery(q)
              }
            }
          }
        }
      }
    }
  }
}

test('sqlite: every query shape walks an index in stored order, with no full scan and no sort of its own (EXPLAIN QUERY PLAN)', { skip: ENGINE !== 'sqlite' && 'the sqlite engine' }, async () => {
  const lrs = await startLrs()
  const registration = crypto.randomUUID()
  const s = statement({ context: { registration, instructor: { mbox: 'mailto:instructor@example.com' }, contextActivities: { parent: [{ id: 'http://example.com/course' }] } } })
  const res = await lrs.client('/statements', { method: 'POST', body: s })
  assert.equal(res.status, 200)
  const row = await lrs.storage.statements.findOne(res.json[0], { voided: false })
  const values = {
    agent: 'mbox:' + s.actor.mbox,
    verb: s.verb.id,
    activity: s.object.id,
    registration,
    authorityKey: 'account:http://localhost/lrs|admin',
    position: row.position
  }
  let count = 0
  const everyShape = async (beside) => {
    for (const q of shapes(values)) {
      const plan = await lrs.storage.statements.explainQuery(q)
      const text = plan.join(' | ')
      assert.ok(plan.length > 0, `a plan for ${JSON.stringify(q)}`)
      assert.ok(!plan.some((line) => /^SCAN /.test(line) && !/USING (COVERING )?INDEX/.test(line)), `no full scan: ${text} for ${JSON.stringify(q)}${beside}`)
      assert.ok(!/TEMP B-TREE/.test(text), `no sort of its own: ${text} for ${JSON.stringify(q)}${beside}`)
      count++
    }
  }
  await everyShape('')
  // the default store beside another: its statements since are found by its store term too (store-terms.js)
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme' } })).status, 201)
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement() })).status, 200)
  await everyShape(', beside another store')
  assert.ok(count > 1000)
  // And the rows come back: the statement matches its own filters.
  const found = await lrs.storage.statements.query(statementQuery({ ...values, agent: values.agent, relatedAgents: true, relatedActivities: true, limit: 5, authorityKey: values.authorityKey }))
  assert.deepEqual(found.map((r) => r.id), [res.json[0]])
})

// MongoDB: each equality field of a filter has an index that starts with it
// and continues with voided, stored, _id, so whichever field the planner
// takes, it walks in stored order and stops at the limit.
test('mongodb: every query shape has an index: its equality field first, then voided, stored, _id', () => {
  const keysOf = (index) => Object.keys(index.key)
  const values = { agent: 'mbox:a@b.c', verb: 'http://v', activity: 'http://o', registration: crypto.randomUUID(), authorityKey: 'account:x|y', position: 'p' }
  const sortTail = ['voided', 'stored', '_id']
  let count = 0
  for (const q of shapes(values)) {
    const filter = statementFilter(q)
    const equality = Object.keys(filter).filter((k) => !k.startsWith('$') && k !== 'voided' && k !== 'stored')
    const candidates = equality.length ? equality : [null]
    for (const field of candidates) {
      const wanted = field ? [field, ...sortTail] : sortTail
      assert.ok(STATEMENT_INDEXES.some((i) => JSON.stringify(keysOf(i)) === JSON.stringify(wanted)), `an index ${wanted.join(', ')} for ${JSON.stringify(filter)}`)
    }
    count++
  }
  assert.ok(count > 500)
})

// Runs where the mongodb engine is on a real MongoDB (MONGODB_URI=… npm test);
// FerretDB, our usual stand-in, serves only _id lookups from an index.
test('mongodb: explain() shows an index scan and no in-memory sort for every query shape', { skip: ENGINE !== 'mongodb' && 'the mongodb engine' }, async (t) => {
  const lrs = await startLrs()
  if (lrs.storage.engine !== 'mongodb') return t.skip(`the server is ${lrs.storage.engine}, not MongoDB: explain() needs a real mongod`)
  const res = await lrs.client('/statements', { method: 'POST', body: statement({ context: { registration: crypto.randomUUID() } }) })
  assert.equal(res.status, 200)
  const col = lrs.storage.internals.db.collection('statements')
  const values = { agent: 'mbox:a@b.c', verb: 'http://v', activity: 'http://o', registration: crypto.randomUUID(), authorityKey: 'account:x|y', position: 'p' }
  const stages = (plan) => JSON.stringify(plan.queryPlanner.winningPlan)
  for (const q of shapes(values)) {
    const dir = q.ascending ? 1 : -1
    const plan = await col.find(statementFilter(q), { sort: { stored: dir, _id: dir }, limit: q.limit }).explain()
    assert.match(stages(plan), /IXSCAN/, JSON.stringify(q))
    assert.doesNotMatch(stages(plan), /"stage":"SORT"/, JSON.stringify(q))
  }
})
