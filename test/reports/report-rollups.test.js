'use strict'

// Issue 57: reports of statements and learners per verb and time bucket,
// and a course's completion funnel, are answered from the hourly counts of
// the storage: the rollups the SQLite writer keeps
// (src/storage/sqlite/report-rollups.js; the answer says `source`), with
// the numbers brute force works out from the store's export: through
// voidings (of a statement stored before, and of one stored after its
// voiding), an erasure, statements without a timestamp, objects that are
// not activities, an anonymous group, another store. What the rollups
// cannot answer exactly (a range not of whole hours, days in a zone of
// half hours) is counted from the statements, with the same numbers. On
// MongoDB the same reports are answered by aggregation pipelines
// (src/storage/mongodb/report-counts.js): the same numbers again.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, ENGINE } = require('../helpers/lrs')
const { storeWithAdmin, postStatements: post } = require('../helpers/stores')

const ADL = 'http://adlnet.gov/expapi/verbs/'
const VERBS = ['launched', 'answered', 'completed', 'passed'].map((v) => ADL + v)
const COURSE = 'http://lms.example.com/courses/rollups'
const OTHER_COURSE = 'http://lms.example.com/courses/other'
const LEARNERS = [
  ...['ann', 'bob', 'cho', 'dee'].map((n) => ({ objectType: 'Agent', mbox: `mailto:${n}@example.com` })),
  { objectType: 'Agent', account: { homePage: 'http://lms.example.com', name: 'emi' } }
]
const HOUR = 3600000
const T0 = Date.parse('2026-10-24T00:00:00Z') // Europe/Paris leaves summer time on the 25th
const q = (value) => encodeURIComponent(JSON.stringify(value))
const COUNTED_BY = ENGINE === 'sqlite' ? 'rollups' : 'aggregation' // who counts per hour

function statement (i, extra = {}) {
  return {
    id: crypto.randomUUID(),
    actor: LEARNERS[i % LEARNERS.length],
    verb: { id: VERBS[i % VERBS.length] },
    object: { objectType: 'Activity', id: `${COURSE}/a${i % 3}` },
    timestamp: new Date(T0 + ((i * 7) % 120) * HOUR + (i % 60) * 60000).toISOString(),
    // most in the course (one of them in a second course too), some in none; results here and there
    ...(i % 5 !== 4 && { context: { contextActivities: { grouping: i % 11 ? [{ id: COURSE }] : [{ id: COURSE }, { id: OTHER_COURSE }] } } }),
    ...(i % 4 === 1 && { result: { success: i % 8 === 1, completion: i % 3 === 0 } }),
    ...extra
  }
}

const learnerOf = (actor) => actor.mbox ? 'mbox:' + actor.mbox : actor.account ? `account:${actor.account.homePage}|${actor.account.name}` : null
const isActivity = (o) => o.objectType === undefined || o.objectType === 'Activity'
const bucketOf = (ms, bucket, timeZone) => {
  const p = Object.fromEntries(new Intl.DateTimeFormat('en-CA', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit' }).formatToParts(new Date(ms)).map((x) => [x.type, x.value]))
  const day = `${p.year}-${p.month}-${p.day}`
  if (bucket === 'hour') return `${day}T${p.hour}:00`
  if (bucket === 'day') return day
  if (bucket === 'month') return `${p.year}-${p.month}`
  const d = new Date(Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day)))
  d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7))
  return d.toISOString().slice(0, 10)
}

const inGrouping = (s, id) => Boolean(s.context && s.context.contextActivities && (s.context.contextActivities.grouping || []).some((a) => a.id === id))

// The report worked out from the export, as a map of group -> measures.
function bruteForce (statements, report) {
  const f = report.filter || {}
  if (report.shape === 'completionFunnel') return bruteFunnel(statements, f)
  const zone = report.timeZone || 'UTC'
  const groups = new Map()
  for (const s of statements) {
    const at = Date.parse(report.timeField === 'stored' ? s.stored : s.timestamp)
    if (f.verb && s.verb.id !== f.verb) continue
    if (f.activity && !(isActivity(s.object) && s.object.id === f.activity)) continue
    if (f.from && at < Date.parse(f.from)) continue
    if (f.to && at >= Date.parse(f.to)) continue
    const values = (report.groupBy || []).map((d) => d === 'verb' ? s.verb.id : d === 'activity' ? (isActivity(s.object) ? s.object.id : null) : bucketOf(at, d, zone))
    const k = JSON.stringify(values)
    const g = groups.get(k) || { statements: 0, learners: new Set() }
    g.statements++
    g.learners.add(learnerOf(s.actor))
    groups.set(k, g)
  }
  return new Map([...groups].map(([k, g]) => [k, report.measures.map((m) => m === 'statements' ? g.statements : g.learners.size)]))
}

// A completion funnel worked out from the export: activity -> [launched, completed, passed] learners.
function bruteFunnel (statements, f) {
  const groups = new Map()
  for (const s of statements) {
    const at = Date.parse(s.timestamp)
    if (f.grouping && !inGrouping(s, f.grouping)) continue
    if ((f.from && at < Date.parse(f.from)) || (f.to && at >= Date.parse(f.to))) continue
    const k = JSON.stringify([isActivity(s.object) ? s.object.id : null])
    const g = groups.get(k) || [new Set(), new Set(), new Set()]
    const learner = learnerOf(s.actor)
    if ([ADL + 'launched', ADL + 'initialized'].includes(s.verb.id)) g[0].add(learner)
    if (s.verb.id === ADL + 'completed' || (s.result && s.result.completion === true)) g[1].add(learner)
    if (s.verb.id === ADL + 'passed' || (s.result && s.result.success === true)) g[2].add(learner)
    groups.set(k, g)
  }
  return new Map([...groups].map(([k, g]) => [k, g.map((set) => set.size)]))
}

test('reports of statements and learners per verb and time bucket, and a course\'s funnel: the hourly counts\' numbers are brute force\'s, through voiding, erasure and other stores', async (t) => {
  const lrs = await startLrs()
  const all = Array.from({ length: 150 }, (_, i) => statement(i))
  // an object that is not an activity, an anonymous group, statements without a timestamp
  all.push(statement(1, { object: LEARNERS[2] }), statement(2, { actor: { objectType: 'Group', member: [LEARNERS[0], LEARNERS[1]] } }))
  const untimed = [statement(3), statement(4)]
  for (const s of untimed) delete s.timestamp
  // a voiding that arrives before the statement it voids
  const late = statement(5)
  await post(lrs.client, [{ actor: LEARNERS[0], verb: { id: ADL + 'voided' }, object: { objectType: 'StatementRef', id: late.id } }])
  await post(lrs.client, [...all, ...untimed, late])
  // a voiding of a statement stored before it
  await post(lrs.client, [{ actor: LEARNERS[0], verb: { id: ADL + 'voided' }, object: { objectType: 'StatementRef', id: all[10].id }, timestamp: new Date(T0).toISOString() }])
  // an erased learner
  assert.equal((await lrs.http(`/admin/agents?agent=${q(LEARNERS[3])}`, { method: 'DELETE' })).status, 200)
  // another store's statements never count
  const other = await storeWithAdmin(lrs, 'other')
  await post(other.xapi, Array.from({ length: 40 }, (_, i) => statement(i)))

  const exported = (await lrs.http('/admin/statements/export')).text.trim().split('\n').map((line) => JSON.parse(line))
  const voided = new Set(exported.filter((s) => s.verb.id === ADL + 'voided').map((s) => s.object.id))
  const counted = exported.filter((s) => !voided.has(s.id))
  assert.ok(exported.some((s) => s.id === late.id) && exported.some((s) => s.id === all[10].id), 'both voided statements are in the export')
  assert.ok(!counted.some((s) => s.id === late.id || s.id === all[10].id), 'and count for nothing')
  assert.ok(!exported.some((s) => s.actor.mbox === LEARNERS[3].mbox), 'the erased learner\'s statements are gone')

  const reports = [
    { groupBy: ['verb', 'day'], measures: ['statements'], timeZone: 'Europe/Paris' },
    { filter: { verb: VERBS[1], from: new Date(T0 + 6 * HOUR).toISOString(), to: new Date(T0 + 80 * HOUR).toISOString() }, groupBy: ['hour'], measures: ['statements'] },
    { groupBy: ['day'], measures: ['learners', 'statements'] },
    { measures: ['statements', 'learners'] },
    { groupBy: ['week', 'verb'], measures: ['statements'], timeZone: 'America/New_York' },
    { groupBy: ['verb'], measures: ['statements'], maxGroups: 2 },
    { filter: { verb: 'http://example.com/never-stored' }, groupBy: ['day'], measures: ['statements'] },
    { shape: 'completionFunnel', filter: { grouping: COURSE } },
    { shape: 'completionFunnel', filter: { grouping: OTHER_COURSE, from: new Date(T0 + 5 * HOUR).toISOString(), to: new Date(T0 + 100 * HOUR).toISOString() } },
    { shape: 'completionFunnel', filter: { grouping: 'http://example.com/never-a-course' } }
  ]
  const fallbacks = [
    // an activity: its statements, by the index
    { filter: { activity: `${COURSE}/a1` }, groupBy: ['week', 'verb'], measures: ['statements'], timeZone: 'America/New_York' },
    { groupBy: ['activity'], measures: ['statements'] },
    { groupBy: ['day'], measures: ['statements', 'learners'], timeZone: 'Asia/Kolkata' }, // days start at half past an hour in UTC
    { filter: { from: new Date(T0 + 90 * 60000).toISOString() }, groupBy: ['verb'], measures: ['statements'] }, // not a whole hour
    // read from the statements, on a timestamp range: only the hours of stored that hold it (report_stored_hours)
    { filter: { from: new Date(T0 + 10 * HOUR).toISOString(), to: new Date(T0 + 50 * HOUR).toISOString() }, groupBy: ['verb'], measures: ['statements', 'learners'] },
    { filter: { from: new Date(T0 - 1000 * HOUR).toISOString(), to: new Date(T0 + 10 * HOUR + 1).toISOString() }, groupBy: ['day'], measures: ['learners'] },
    { timeField: 'stored', filter: { from: new Date(Date.now() - HOUR).toISOString(), to: new Date(Date.now() + HOUR).toISOString() }, groupBy: ['verb'], measures: ['statements'] },
    { timeField: 'stored', filter: { to: new Date(Date.now() - HOUR).toISOString() }, measures: ['statements'] },
    { shape: 'completionFunnel', filter: { grouping: COURSE, from: new Date(T0 + 30 * 60000).toISOString() } }, // not a whole hour
    { shape: 'completionFunnel' } // every course: read from the statements
  ]
  for (const report of [...reports, ...fallbacks]) {
    const res = await lrs.http('/admin/reports/run', { method: 'POST', body: report })
    assert.equal(res.status, 200, res.text)
    const answer = res.json
    const expected = bruteForce(counted, report)
    const name = JSON.stringify(report)
    assert.equal(answer.groups, expected.size, name)
    assert.equal(answer.truncated, expected.size > (report.maxGroups || 1000), name)
    const dims = report.shape ? 1 : (report.groupBy || []).length
    for (const row of answer.rows) assert.deepEqual(row.slice(dims), expected.get(JSON.stringify(row.slice(0, dims))), `${name}: ${JSON.stringify(row)}`)
    if (!report.maxGroups) assert.equal(answer.rows.length, expected.size, name)
    assert.equal(answer.source, reports.includes(report) ? COUNTED_BY : 'statements', name)
  }
  // rows along the time bucket, and largest first without one
  const byDay = (await lrs.http('/admin/reports/run', { method: 'POST', body: reports[2] })).json.rows.map((r) => r[0])
  assert.deepEqual(byDay, [...byDay].sort())
  const top = (await lrs.http('/admin/reports/run', { method: 'POST', body: reports[5] })).json.rows.map((r) => r[1])
  assert.equal(top.length, 2, 'cut at maxGroups')
  assert.ok(top[0] >= top[1], `largest first: ${top}`)
})

test('MongoDB: statements stored before they had report fields get them at the next start; reports read the statements until then', { skip: ENGINE !== 'mongodb' && 'MongoDB databases only (SQLite: schema 15, test/storage/schema-upgrade.test.js)' }, async () => {
  const first = await startLrs()
  const statements = Array.from({ length: 30 }, (_, i) => statement(i))
  await post(first.client, statements)
  const report = { groupBy: ['verb', 'day'], measures: ['statements'] }
  const funnel = { shape: 'completionFunnel', filter: { grouping: COURSE } }
  const before = (await first.http('/admin/reports/run', { method: 'POST', body: report })).json
  const funnelBefore = (await first.http('/admin/reports/run', { method: 'POST', body: funnel })).json
  assert.equal(before.source, 'aggregation')
  assert.equal(funnelBefore.source, 'aggregation')
  const env = first.storeEnv
  // as an LRS of before 2026-12-06 left them: no rh, no rl, no setting
  const { MongoClient } = require('mongodb')
  const client = new MongoClient(env.MONGODB_URI)
  const db = client.db(env.MONGODB_DB)
  try {
    await db.collection('statements').updateMany({}, { $unset: { rh: '', rl: '', rg: '', fL: '', fC: '', fP: '' } })
    await db.collection('settings').deleteOne({ _id: 'report_fields_complete' })
    await first.close({ graceMs: 0 })
    const upgraded = await startLrs(env)
    let answer
    for (let k = 0; k < 100; k++) {
      answer = (await upgraded.http('/admin/reports/run', { method: 'POST', body: report })).json
      if (answer.source === 'aggregation') break
      assert.deepEqual(answer.rows, before.rows, 'read from the statements meanwhile: the same numbers')
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.equal(answer.source, 'aggregation', 'the fields were given, the setting recorded')
    assert.deepEqual(answer.rows, before.rows)
    assert.deepEqual((await upgraded.http('/admin/reports/run', { method: 'POST', body: funnel })).json.rows, funnelBefore.rows)
    assert.equal(await db.collection('statements').countDocuments({ body: { $exists: true }, rh: { $exists: false } }), 0)
  } finally {
    await client.close()
  }
})
