'use strict'

// Learner sessions (the SCORM Engine study): virtual
// learners behave like a SCORM/cmi5 player. A session reads its bookmark
// (State), then every interval sends a statement and writes the bookmark,
// then sends its completion statements and checks completion the way a
// player does (statements of its registration, verb completed, the course
// as activity). Learners are added step by step; every request's latency
// is kept with the number of learners active when it started.
//
// Time is compressed: a player writes every 20 s; here a learner does every
// `intervalMs` (2 s by default), so one virtual learner makes the requests
// of 20 s / intervalMs real ones, and the figures are reported in real
// learners (`compression`).

const crypto = require('node:crypto')
const http = require('node:http')
const https = require('node:https')
const { scormStatement, attemptOf, profileNamed, currentProfile } = require('./statement-generator')
const { startLrs } = require('./lrs-process')
const { startStore } = require('./store')
const { prefill } = require('./fill-store')
const { percentile } = require('./report')

const REAL_INTERVAL_MS = 20000
// The P99 of each kind of request, in each level's figures.
const KINDS = { bookmarkReadP99Ms: 'bookmark read', statementP99Ms: 'statement', bookmarkWriteP99Ms: 'bookmark write', completionP99Ms: 'completion' }
// The SCORM Engine study's thresholds on the 99th percentile.
// Below 1.2 s Ideal, to 2 s Acceptable, to 5 s Frustrating, beyond Unacceptable.
const THRESHOLDS = [{ name: 'past Ideal (1.2 s)', ms: 1200 }, { name: 'past Acceptable (2 s)', ms: 2000 }, { name: 'past Frustrating (5 s)', ms: 5000 }]

// Requests over node:http with keep-alive connections. (It used fetch:
// undici's streams, abort signals and pool cost about 1 ms of CPU a
// request on the 2-core VM, so at ~800 requests/s the load generator took
// a core of its own and its late event loop showed as the LRS's latency.)
function client (url, auth) {
  const target = new URL(url)
  const transport = target.protocol === 'https:' ? https : http
  const agent = new transport.Agent({ keepAlive: true })
  const headers = { 'X-Experience-API-Version': '1.0.3', Authorization: 'Basic ' + Buffer.from(auth).toString('base64') }
  const prefix = target.pathname.replace(/\/$/, '') + '/xapi'
  return function request (path, { method = 'GET', body, contentType = 'application/json' } = {}) {
    const start = performance.now()
    return new Promise((resolve) => {
      const done = (status, text = null) => resolve({ status, ms: performance.now() - start, text })
      const h = body === undefined ? headers : { ...headers, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) }
      const req = transport.request({ hostname: target.hostname, port: target.port, path: prefix + path, method, headers: h, agent, timeout: 30000 }, (res) => {
        const chunks = []
        res.on('data', (c) => chunks.push(c))
        res.on('end', () => done(res.statusCode, Buffer.concat(chunks).toString('utf8')))
        res.on('error', () => done('error'))
      })
      req.on('timeout', () => req.destroy(new Error('timed out')))
      req.on('error', () => done('error'))
      req.end(body)
    })
  }
}

// Session n is an attempt of the run's statement profile (campus unless
// said): a learner of its population, a course of its catalogue and, as a
// SCORM or cmi5 player does, a registration of its own (the small
// profile's: one per learner and course). Its attempts are taken far past
// any prefilled statement, so each session starts a new registration.
const FIRST_SESSION_STATEMENT = 1e9
function attemptOfSession (n) {
  const perAttempt = profileNamed(currentProfile()).statementsPerAttempt || 1
  return attemptOf(FIRST_SESSION_STATEMENT + n * perAttempt)
}

// One learner's session; `record(kind, result)` gets every request.
async function session (request, { n, intervalMs, steps, record, running }) {
  const { learner, course: c, registration } = attemptOfSession(n)
  const course = `http://lms.example.com/courses/course-${c}`
  const agent = { objectType: 'Agent', account: { homePage: 'http://lms.example.com', name: `learner-${learner}` } }
  const state = `/activities/state?activityId=${encodeURIComponent(course)}&agent=${encodeURIComponent(JSON.stringify(agent))}&registration=${registration}&stateId=bookmark`
  const statementOf = (verb) => {
    const s = scormStatement(n)
    s.id = crypto.randomUUID()
    s.actor = { ...agent, name: `Learner ${learner}` }
    s.verb = { id: `http://adlnet.gov/expapi/verbs/${verb}`, display: { 'en-US': verb } }
    s.context.registration = registration
    s.context.contextActivities.grouping = [{ id: course, objectType: 'Activity' }]
    return s
  }
  record('bookmark read', await request(state))
  for (let i = 0; i < steps && running(); i++) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs * (0.5 + Math.random())))
    record('statement', await request('/statements', { method: 'POST', body: JSON.stringify(statementOf('progressed')) }))
    record('bookmark write', await request(state, { method: 'PUT', body: JSON.stringify({ location: i }) }))
  }
  if (!running()) return
  const completed = statementOf('completed')
  completed.object = { objectType: 'Activity', id: course }
  const stored = await request('/statements', { method: 'POST', body: JSON.stringify([completed, statementOf('passed')]) })
  record('completion', stored)
  if (stored.status !== 200) return
  // A player decides from this answer whether the course is complete: it
  // must hold the completion just stored.
  const check = `/statements?registration=${registration}&verb=${encodeURIComponent('http://adlnet.gov/expapi/verbs/completed')}&activity=${encodeURIComponent(course)}&limit=1`
  const answer = await request(check)
  let correct = false
  try {
    correct = answer.status === 200 && JSON.parse(answer.text).statements.some((x) => x.id === completed.id)
  } catch {}
  record('completion check', { ...answer, correct })
}

// target: { engine } or { url, auth }. Learners rise by `stepLearners`
// every `stepSeconds` up to `maxLearners`; each finished session is
// replaced at once, so the number active is the step's. `prefilled`: the
// statements stored before the LRS starts (a store in use, not an empty
// one; not with a target URL).
async function learnerSessions ({ target, maxLearners = 400, stepLearners = 40, stepSeconds = 6, intervalMs = 2000, steps = 5, prefilled = 0, onPrefill = () => {}, onStep = () => {} }) {
  const store = target.url ? null : await startStore(target.engine)
  if (store) await prefill(store, prefilled, { onProgress: onPrefill })
  const lrs = target.url ? { url: target.url, stop: async () => {} } : await startLrs({ store })
  const request = client(lrs.url, target.url ? target.auth : 'bench:bench-secret')
  const compression = REAL_INTERVAL_MS / intervalMs
  let active = 0
  let wanted = 0
  let n = 0
  let stopping = false
  const samples = [] // { level, kind, ms, status }
  const record = (kind, r) => samples.push({ level: wanted, kind, ms: r.ms, status: r.status, correct: r.correct })
  const loops = []
  const learnerLoop = async () => {
    while (!stopping) {
      await session(request, { n: n++, intervalMs, steps, record, running: () => !stopping })
    }
  }
  const levels = []
  try {
    for (wanted = stepLearners; wanted <= maxLearners; wanted += stepLearners) {
      while (active < wanted) { active++; loops.push(learnerLoop()) }
      const from = samples.length
      await new Promise((resolve) => setTimeout(resolve, stepSeconds * 1000))
      const mine = samples.slice(from)
      const level = {
        virtualLearners: wanted,
        learners: wanted * compression,
        requestsPerSec: Math.round(mine.length / stepSeconds),
        p50Ms: percentile(mine.map((s) => s.ms), 50),
        p99Ms: percentile(mine.map((s) => s.ms), 99),
        completionCheckP99Ms: percentile(mine.filter((s) => s.kind === 'completion check').map((s) => s.ms), 99),
        completionChecks: mine.filter((s) => s.kind === 'completion check').length,
        completionChecksWrong: mine.filter((s) => s.kind === 'completion check' && s.status === 200 && !s.correct).length, // refused ones are retried by a player, not wrong
        failures: mine.filter((s) => s.status === 'error' || s.status >= 500).length,
        refused429: mine.filter((s) => s.status === 429).length,
        // which requests the slow ones are
        ...Object.fromEntries(Object.entries(KINDS).map(([field, kind]) => [field, percentile(mine.filter((s) => s.kind === kind).map((s) => s.ms), 99)]))
      }
      levels.push(level)
      onStep(level)
      if (level.p99Ms > THRESHOLDS[THRESHOLDS.length - 1].ms) break // past Unacceptable: enough
    }
  } finally {
    stopping = true
    await Promise.all(loops)
    await lrs.stop()
    if (store) await store.stop()
  }
  const crossing = Object.fromEntries(THRESHOLDS.map((t) => {
    const level = levels.find((l) => l.p99Ms > t.ms)
    return [t.name, level ? level.learners : null]
  }))
  return { compression, levels, crossing, thresholds: THRESHOLDS }
}

module.exports = { learnerSessions }
