'use strict'

// Issue 57: POST /admin/reports/run. Each kind of report over a small
// store whose answers are worked out here by brute force from the
// statements posted (the way a held-out check does it from an export),
// number by number; the same test on each engine. CSV says the same as
// JSON; a `reports` key reads figures and not statements; a report never
// counts a voided statement, another store's, or (statements/read/mine)
// one its credential could not read; bad reports are 400s naming the field.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { storeWithAdmin, postStatements: post } = require('../helpers/stores')

const ADL = 'http://adlnet.gov/expapi/verbs/'
const COURSES = ['http://lms.example.com/courses/safety', 'http://lms.example.com/courses/forklift']
const LEARNERS = ['ann', 'bob', 'cho', 'dee', 'eve'].map((n) => ({ objectType: 'Agent', name: n, mbox: `mailto:${n}@example.com` }))
const DAY = 86400000
const T0 = Date.parse('2026-11-02T00:00:00Z') // a Monday

// A campus in small: per learner and course a registration, its launch,
// answers with scores and durations across days (some at 23:30 UTC, the next
// day in Paris), a completion, a pass or a fail; a question's type.
function campus () {
  const list = []
  let n = 0
  for (const [l, learner] of LEARNERS.entries()) {
    for (const [c, course] of COURSES.entries()) {
      if (l === 4 && c === 1) continue // eve never starts the second course
      const registration = crypto.randomUUID()
      const at = (k) => new Date(T0 + (l + c + k) * DAY / 2 + (k % 2 ? 23.5 * 3600000 : 9 * 3600000)).toISOString()
      const s = (verb, object, extra = {}, k = 0) => ({
        id: crypto.randomUUID(),
        actor: learner,
        verb: { id: ADL + verb, display: { 'en-US': verb } },
        object: { objectType: 'Activity', id: object, definition: { type: object === course ? 'http://adlnet.gov/expapi/activities/course' : 'http://adlnet.gov/expapi/activities/cmi.interaction' } },
        context: { registration, platform: c ? 'Mobile' : 'Web', contextActivities: { grouping: [{ id: course }], ...(object !== course && { parent: [{ id: course + '/module-1' }] }) } },
        timestamp: at(k),
        ...extra
      })
      list.push(s('launched', course, {}, 0), s('initialized', course, {}, 0))
      for (let q = 0; q < 3; q++) {
        n++
        const scaled = ((n * 37) % 100) / 100
        list.push(s('answered', `${course}/q${q}`, { result: { success: scaled >= 0.5, score: { scaled, raw: Math.round(scaled * 10), min: 0, max: 10 }, duration: `PT${(n % 7) + 1}M${(n % 3) * 15}S` } }, q + 1))
      }
      if (l !== 3) list.push(s('completed', course, { result: { completion: true, duration: `PT${l + 1}H` } }, 4))
      if (l < 2) list.push(s('passed', course, { result: { success: true, score: { scaled: 0.9 - l / 10 } } }, 5))
      else if (l !== 3) list.push(s('failed', course, { result: { success: false, score: { scaled: 0.3 } } }, 5))
    }
  }
  return list
}

const key = (agent) => 'mbox:' + agent.mbox
const nearestRank = (values, p) => { const s = [...values].sort((a, b) => a - b); return s[Math.max(0, Math.ceil(p / 100 * s.length) - 1)] }
const round = (x) => Math.round(x * 1e9) / 1e9
const parisDay = (iso) => new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(iso))
const seconds = (d) => { const m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$/.exec(d); return (Number(m[1] || 0) * 3600) + (Number(m[2] || 0) * 60) + Number(m[3] || 0) }

// What a client reading the CSV sees: rows of cells (RFC 4180)
function parseCsv (text) {
  const rows = []
  let row = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++ } else if (ch === '"') quoted = false
      else cell += ch
    } else if (ch === '"') quoted = true
    else if (ch === ',') { row.push(cell); cell = '' } else if (ch === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++ } else cell += ch
  }
  return rows
}

test('reports answer what brute force over the statements answers, number by number: per verb and day in a time zone, score spread, durations, a completion funnel, learner progress', async (t) => {
  const lrs = await startLrs()
  const all = campus()
  await post(lrs.client, all)
  // a voided statement never counts: one of ann's answers, voided
  const voided = all.find((s) => s.verb.id === ADL + 'answered')
  await post(lrs.client, [{ actor: LEARNERS[0], verb: { id: ADL + 'voided' }, object: { objectType: 'StatementRef', id: voided.id } }])
  const counted = all.filter((s) => s !== voided)
  // another store's statements never count either
  const other = await storeWithAdmin(lrs, 'other')
  await post(other.xapi, campus().slice(0, 20))
  const run = async (report, headers = {}) => {
    const res = await lrs.http('/admin/reports/run', { method: 'POST', body: report, headers })
    assert.equal(res.status, 200, res.text)
    return res
  }

  // statements and learners per verb and day, Paris time, from a grouping
  const byVerbDay = (await run({ filter: { grouping: COURSES[0] }, groupBy: ['verb', 'day'], measures: ['statements', 'learners'], timeZone: 'Europe/Paris' })).json
  const expected = new Map()
  for (const s of counted.filter((s) => s.context.contextActivities.grouping[0].id === COURSES[0])) {
    const k = JSON.stringify([s.verb.id, parisDay(s.timestamp)])
    const e = expected.get(k) || { statements: 0, learners: new Set() }
    e.statements++
    e.learners.add(key(s.actor))
    expected.set(k, e)
  }
  assert.deepEqual(byVerbDay.columns, ['verb', 'day', 'statements', 'learners'])
  assert.equal(byVerbDay.rows.length, expected.size)
  for (const [verb, day, statements, learners] of byVerbDay.rows) {
    const e = expected.get(JSON.stringify([verb, day]))
    assert.ok(e, `${verb} ${day} expected`)
    assert.deepEqual([statements, learners], [e.statements, e.learners.size], `${verb} ${day}`)
  }
  const days = byVerbDay.rows.map((r) => r[1])
  assert.deepEqual(days, [...days].sort(), 'along the days')
  assert.equal(byVerbDay.statementsCounted, counted.filter((s) => s.context.contextActivities.grouping[0].id === COURSES[0]).length)

  // the score spread of one question, scaled and raw
  const q0 = `${COURSES[1]}/q0`
  const answers = counted.filter((s) => s.object.id === q0)
  const scaled = answers.map((s) => s.result.score.scaled)
  const spread = (await run({ filter: { activity: q0 }, measures: ['score.count', 'score.mean', 'score.min', 'score.max', 'score.p50', 'score.p90'] })).json
  assert.deepEqual(spread.rows, [[scaled.length, round(scaled.reduce((a, b) => a + b, 0) / scaled.length), Math.min(...scaled), Math.max(...scaled), nearestRank(scaled, 50), nearestRank(scaled, 90)]])
  const raw = (await run({ filter: { activity: q0, scoreMin: 3 }, score: 'raw', measures: ['score.count', 'score.max'] })).json
  const raws = answers.map((s) => s.result.score.raw).filter((v) => v >= 3)
  assert.deepEqual(raw.rows, [[raws.length, Math.max(...raws)]])

  // durations per learner on answered questions (ISO 8601 parsed), successes only
  const timed = counted.filter((s) => s.verb.id === ADL + 'answered' && s.result.success === true)
  const durations = (await run({ filter: { verb: ADL + 'answered', success: true }, groupBy: ['learner'], measures: ['duration.sum', 'duration.mean', 'registrations'] })).json
  for (const [learner, sum, mean, registrations] of durations.rows) {
    const mine = timed.filter((s) => key(s.actor) === learner)
    const total = mine.reduce((a, s) => a + seconds(s.result.duration), 0)
    assert.deepEqual([sum, mean, registrations], [total, round(total / mine.length), new Set(mine.map((s) => s.context.registration)).size], learner)
  }
  assert.equal(durations.rows.length, new Set(timed.map((s) => key(s.actor))).size)

  // the completion funnel of a course: per object activity, learners launched / completed / passed
  const funnel = (await run({ shape: 'completionFunnel', filter: { grouping: COURSES[0] } })).json
  assert.deepEqual(funnel.columns, ['activity', 'launched', 'completed', 'passed'])
  const courseRow = funnel.rows.find((r) => r[0] === COURSES[0])
  const inCourse = counted.filter((s) => s.object.id === COURSES[0])
  const who = (test) => new Set(inCourse.filter(test).map((s) => key(s.actor))).size
  assert.deepEqual(courseRow, [COURSES[0], who((s) => [ADL + 'launched', ADL + 'initialized'].includes(s.verb.id)), who((s) => s.verb.id === ADL + 'completed'), who((s) => s.verb.id === ADL + 'passed' || (s.result && s.result.success === true))])
  assert.deepEqual(courseRow.slice(1), [5, 4, 2], 'five launched, four completed, two passed')

  // learner progress per registration in the second course
  const progress = (await run({ shape: 'learnerProgress', per: 'registration', filter: { grouping: COURSES[1] } })).json
  assert.deepEqual(progress.columns, ['registration', 'statements', 'lastVerb', 'lastTimestamp', 'completed', 'passed', 'bestScore', 'timeSpent'])
  const registrations = new Set(counted.filter((s) => s.context.contextActivities.grouping[0].id === COURSES[1]).map((s) => s.context.registration))
  assert.equal(progress.rows.length, registrations.size)
  for (const row of progress.rows) {
    const mine = counted.filter((s) => s.context.registration === row[0])
    const last = mine.reduce((a, s) => (s.timestamp > a.timestamp || (s.timestamp === a.timestamp && s.id > a.id)) ? s : a)
    const scores = mine.filter((s) => s.result && s.result.score).map((s) => s.result.score.scaled)
    assert.deepEqual(row.slice(1), [
      mine.length, last.verb.id, new Date(last.timestamp).toISOString(),
      mine.some((s) => s.verb.id === ADL + 'completed' || (s.result && s.result.completion === true)),
      mine.some((s) => s.verb.id === ADL + 'passed' || (s.result && s.result.success === true)),
      Math.max(...scores), mine.reduce((a, s) => a + (s.result && s.result.duration ? seconds(s.result.duration) : 0), 0)
    ], row[0])
  }

  // as CSV: the same table
  const csv = await run({ filter: { grouping: COURSES[0] }, groupBy: ['verb', 'day'], measures: ['statements', 'learners'], timeZone: 'Europe/Paris' }, { Accept: 'text/csv' })
  assert.match(csv.headers.get('content-type'), /^text\/csv/)
  const table = parseCsv(csv.text)
  assert.deepEqual(table[0], byVerbDay.columns)
  assert.deepEqual(table.slice(1), byVerbDay.rows.map((r) => r.map(String)))

  // maxGroups: cut, and said
  const cut = (await run({ groupBy: ['learner'], measures: ['statements'], maxGroups: 2 })).json
  assert.equal(cut.rows.length, 2)
  assert.equal(cut.truncated, true)
  assert.equal(cut.groups, 5)
})

test('a reports key reads figures, not statements; statements/read/mine counts its own; bad reports are 400s naming the field', async (t) => {
  const lrs = await startLrs()
  const figures = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['reports'] } })
  assert.equal(figures.status, 201, figures.text)
  const mine = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['statements/write', 'statements/read/mine'] } })
  const bi = [figures.json.key, figures.json.secret]
  const own = [mine.json.key, mine.json.secret]
  await post(lrs.client, campus().slice(0, 10))
  await post((path, options) => lrs.client(path, { ...options, auth: own }), campus().slice(0, 3))
  const total = { measures: ['statements'] }
  const asBi = await lrs.http('/admin/reports/run', { method: 'POST', body: total, auth: bi })
  assert.equal(asBi.status, 200, asBi.text)
  assert.deepEqual(asBi.json.rows, [[13]])
  assert.equal((await lrs.client('/statements', { auth: bi })).status, 403, 'figures, not statements')
  assert.equal((await lrs.http('/admin/credentials', { auth: bi })).status, 403)
  const asMine = await lrs.http('/admin/reports/run', { method: 'POST', body: total, auth: own })
  assert.deepEqual(asMine.json.rows, [[3]], 'only what it stored')

  const bad = async (body, field) => {
    const res = await lrs.http('/admin/reports/run', { method: 'POST', body })
    assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`)
    assert.match(res.json.message, field)
  }
  await bad({ measures: ['statements', 'median'] }, /measures/)
  await bad({ measures: ['statements'], groupBy: ['verb', 'day', 'learner'] }, /groupBy/)
  await bad({ measures: ['statements'], timeZone: 'Mars/Olympus' }, /timeZone/)
  await bad({ shape: 'completionFunnel', groupBy: ['verb'] }, /groupBy/)
  await bad({ groupBy: ['verb'] }, /measures/)
  await bad({ measures: ['statements'], filter: { related_activities: true } }, /filter\.related_activities/)
  await bad({ measures: ['statements'], filter: { verb: 'not an iri' } }, /filter\.verb/)
  await bad({ measures: ['statements'], filter: { agent: { name: 'no identifier' } } }, /agent/)
  await bad({ measures: ['statements'], filter: { from: '2026-12-02T00:00:00Z', to: '2026-12-01T00:00:00Z' } }, /filter\.from/)
})
