'use strict'

// Realistic SCORM-profile-like statements of about 1.8 KB: actor, verb,
// activity with definition and extensions, result, context with
// registration and contextActivities, timestamp.
//
// How many learners, attempts (registrations) and activities they draw
// from is the profile's (PROFILES): a store's cost follows how many
// distinct terms it holds and how often new ones come, so every report
// names the profile its statements came from. `BENCH_PROFILE` chooses it
// for a run (`npm run bench -- --profile worst` sets it); campus unless
// said otherwise.
//
// Statement i belongs to attempt floor(i / statementsPerAttempt) (a
// registration, as a SCORM or cmi5 player makes one per attempt); an
// attempt is one learner's in one course, the learner drawn by a
// permutation of the attempt number (every learner comes round once per
// `learners` attempts, in no particular order). Within an attempt the
// statements walk the course's SCOs and questions. All of it is a
// function of i: the same i gives the same terms in any process.

const crypto = require('node:crypto')

const VERBS = ['completed', 'passed', 'failed', 'answered', 'experienced', 'attempted', 'progressed']
const SCOS_PER_COURSE = 12
const QUESTIONS_PER_SCO = 25

// learners: distinct actors; statementsPerAttempt: statements sharing a
// registration (null: one registration per learner and course, the bench's
// data before profiles); courses x 12 SCOs x 25 questions: the object
// activities (plus the SCOs and courses themselves in context).
const PROFILES = {
  // Wave 1-3's data: 5,000 learners, 5,000 registrations, 12,000 activities.
  small: { learners: 5000, statementsPerAttempt: null, courses: 40 },
  // A university or a company academy: 100,000 learners, a registration per
  // 20 statements, 20,100 activities (67 courses).
  campus: { learners: 100000, statementsPerAttempt: 20, courses: 67 },
  // A new registration for every statement, 1,000,000 learners.
  worst: { learners: 1000000, statementsPerAttempt: 1, courses: 67 }
}
const DEFAULT_PROFILE = 'campus'

function profileNamed (name) {
  const profile = PROFILES[name]
  if (!profile) throw new Error(`unknown statement profile '${name}'; known: ${Object.keys(PROFILES).join(', ')}`)
  return profile
}

// The profile of this run: BENCH_PROFILE, or campus.
function currentProfile () {
  return process.env.BENCH_PROFILE || DEFAULT_PROFILE
}

// What a report says of its statements' shape.
function describeProfile (name = currentProfile()) {
  const p = profileNamed(name)
  const activities = p.courses * SCOS_PER_COURSE * QUESTIONS_PER_SCO
  return {
    name,
    learners: p.learners,
    statementsPerRegistration: p.statementsPerAttempt,
    activities,
    text: `${name}: ${p.learners.toLocaleString('en-US')} learners, ` +
      (p.statementsPerAttempt === null ? 'one registration per learner and course' : p.statementsPerAttempt === 1 ? 'a new registration for every statement' : `a registration per ${p.statementsPerAttempt} statements`) +
      `, ${activities.toLocaleString('en-US')} activities`
  }
}

const uuidOf = (text) => {
  const h = crypto.createHash('sha1').update(text).digest('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`
}

// One registration per learner and course (the small profile, and the
// learner-session scenario's own learners).
function registrationOf (learner, course) {
  return uuidOf(`${learner}|${course}`)
}

// A permutation of 0..n-1 for attempts mod n (the multiplier is prime to
// any n made of 2s and 5s and to most others): consecutive attempts go to
// learners far apart.
const SCRAMBLE = 2654435761
function learnerOfAttempt (attempt, learners) {
  return Number((BigInt(attempt) * BigInt(SCRAMBLE)) % BigInt(learners))
}

// Who, in which course and under which registration statement i is.
function attemptOf (i, name = currentProfile()) {
  const p = profileNamed(name)
  if (p.statementsPerAttempt === null) {
    const learner = i % p.learners
    const course = i % p.courses
    return { learner, course, registration: registrationOf(learner, course) }
  }
  const attempt = Math.floor(i / p.statementsPerAttempt)
  if (last.name === name && last.attempt === attempt) return last.value
  const learner = learnerOfAttempt(attempt, p.learners)
  const course = (attempt * 7 + learner) % p.courses
  last = { name, attempt, value: { learner, course, registration: uuidOf(`${name}|attempt|${attempt}`) } }
  return last.value
}
let last = {} // the attempt of the statement before, which the next ones share

// Statement i of the profile (`name`, or this run's).
function scormStatement (i = 0, name = currentProfile()) {
  return statementOf(i, attemptOf(i, name))
}

// Statement i as `attempt` (attemptOf) has it: who, which course, which
// registration; `sessionId`, the context's session-id extension.
function statementOf (i, { learner, course: c, registration }, sessionId = crypto.randomUUID()) {
  const course = `http://lms.example.com/courses/course-${c}`
  const sco = `${course}/scos/sco-${i % SCOS_PER_COURSE}`
  const verb = VERBS[i % VERBS.length]
  const q = i % QUESTIONS_PER_SCO
  return {
    actor: {
      objectType: 'Agent',
      name: `Learner ${learner}`,
      account: { homePage: 'http://lms.example.com', name: `learner-${learner}` }
    },
    verb: { id: `http://adlnet.gov/expapi/verbs/${verb}`, display: { 'en-US': verb } },
    object: {
      objectType: 'Activity',
      id: `${sco}/interactions/q${q}`,
      definition: {
        name: { 'en-US': `Question ${q} of the module on workplace safety procedures` },
        description: { 'en-US': 'Select the correct procedure for reporting an incident on the shop floor, in order.' },
        type: 'http://adlnet.gov/expapi/activities/cmi.interaction',
        interactionType: 'choice',
        correctResponsesPattern: ['report[,]isolate[,]document'],
        choices: [
          { id: 'report', description: { 'en-US': 'Report to the supervisor' } },
          { id: 'isolate', description: { 'en-US': 'Isolate the area' } },
          { id: 'document', description: { 'en-US': 'Document what happened' } }
        ],
        extensions: {
          'http://lms.example.com/xapi/extensions/scorm-interaction-index': q,
          'http://lms.example.com/xapi/extensions/weighting': 1.0
        }
      }
    },
    result: {
      score: { scaled: 0.8, raw: 8, min: 0, max: 10 },
      success: i % 3 !== 0,
      completion: true,
      response: 'report[,]isolate[,]document',
      duration: `PT${(i % 600) + 1}.25S`,
      extensions: { 'http://lms.example.com/xapi/extensions/attempt': (i % 4) + 1 }
    },
    context: {
      registration,
      revision: '3',
      platform: 'Example LMS 12.4',
      language: 'en-US',
      contextActivities: {
        parent: [{ id: sco, objectType: 'Activity' }],
        grouping: [{ id: course, objectType: 'Activity' }],
        category: [{ id: 'https://w3id.org/xapi/scorm', objectType: 'Activity', definition: { type: 'http://adlnet.gov/expapi/activities/profile' } }]
      },
      extensions: { 'http://lms.example.com/xapi/extensions/session-id': sessionId }
    },
    timestamp: new Date(Date.now() - (i % 1000) * 1000).toISOString()
  }
}

// Request bodies (JSON arrays of `batch` statements) of the profile's
// statements from..., one after another: `nextBody()` gives the next. A
// load generator shares the machine with the LRS it measures, so the text
// of each statement is made from a template (its i modulo TEMPLATES: every
// verb, SCO and question comes round) by putting in its learner, course,
// registration and session id, not by building and serializing it: about
// a fifth of scormStatement's 25 us.
const TEMPLATES = 2100 // 7 verbs x 12 SCOs x 25 questions
const MARK = { learner: '%%learner%%', course: '%%course%%', registration: '%%registration%%', session: '%%session%%' }
function statementBodies (batch, { from = 0, name = currentProfile() } = {}) {
  profileNamed(name)
  const templates = new Array(TEMPLATES)
  let next = from
  const text = (i) => {
    const k = i % TEMPLATES
    const template = templates[k] || (templates[k] = JSON.stringify(statementOf(k, { learner: MARK.learner, course: MARK.course, registration: MARK.registration }, MARK.session)).split('%%'))
    const a = attemptOf(i, name)
    let out = ''
    for (let p = 0; p < template.length; p++) {
      const part = template[p]
      out += p % 2 === 0 ? part : part === 'learner' ? a.learner : part === 'course' ? a.course : part === 'registration' ? a.registration : crypto.randomUUID()
    }
    return out
  }
  return function nextBody () {
    let body = '['
    for (let j = 0; j < batch; j++) body += (j ? ',' : '') + text(next++)
    return body + ']'
  }
}

module.exports = { scormStatement, statementBodies, registrationOf, attemptOf, PROFILES, DEFAULT_PROFILE, currentProfile, describeProfile, profileNamed }

if (require.main === module) {
  const s = JSON.stringify(scormStatement(7))
  process.stdout.write(`${describeProfile().text}\n${s.length} bytes\n${s}\n`)
}
