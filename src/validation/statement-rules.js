'use strict'

// The statement rules a schema cannot say well, as named assert* functions.
// Each throws InvalidStatement naming the field. Section numbers are xAPI 1.0.3 Data.

const { errors } = require('../errors')
const { forEachContextActivity } = require('./context-activities')

const VOIDED_VERB = 'http://adlnet.gov/expapi/verbs/voided'
const IFIS = ['mbox', 'mbox_sha1sum', 'openid', 'account']

function fail (message) {
  throw errors.InvalidStatement(message)
}

function ifiCount (actor) {
  let n = 0
  for (const k of IFIS) if (actor[k] !== undefined) n++
  return n
}

// Data 2.4.2.1 / 2.4.2.2: an Agent has exactly one IFI; an identified Group
// exactly one; an anonymous Group has members.
function assertActor (actor, path) {
  const n = ifiCount(actor)
  if (actor.objectType === 'Group') {
    if (n > 1) fail(`${path} must have at most one inverse functional identifier (mbox, mbox_sha1sum, openid, account)`)
    if (n === 0 && !(Array.isArray(actor.member) && actor.member.length > 0)) fail(`${path} is an anonymous Group and must list its members`)
    if (actor.member) actor.member.forEach((m, i) => assertActor(m, `${path}.member[${i}]`))
  } else if (n !== 1) {
    fail(`${path} must have exactly one inverse functional identifier (mbox, mbox_sha1sum, openid, account)`)
  }
}

// Data 2.4.9: authority is an Agent, or an anonymous Group of exactly two Agents (OAuth).
function assertAuthority (authority) {
  assertActor(authority, 'authority')
  if (authority.objectType === 'Group' && (ifiCount(authority) !== 0 || !Array.isArray(authority.member) || authority.member.length !== 2)) {
    fail('authority as a Group must be anonymous with exactly two members')
  }
}

// Data 2.4.5.1.1: min <= raw <= max, min < max.
function assertScore (score, path) {
  if (!score) return
  const { raw, min, max } = score
  if (min !== undefined && max !== undefined && !(min < max)) fail(`${path}.min must be less than max`)
  if (raw !== undefined && min !== undefined && raw < min) fail(`${path}.raw must not be below min`)
  if (raw !== undefined && max !== undefined && raw > max) fail(`${path}.raw must not be above max`)
}

// Data 2.4.4.1: interaction components belong to their interaction types,
// and ids within one component list are unique.
const COMPONENTS_FOR = new Map([
  ['choice', ['choices']],
  ['sequencing', ['choices']],
  ['likert', ['scale']],
  ['matching', ['source', 'target']],
  ['performance', ['steps']]
])
const COMPONENT_LISTS = ['choices', 'scale', 'source', 'target', 'steps']

function assertInteraction (definition, path) {
  if (!definition) return
  const allowed = COMPONENTS_FOR.get(definition.interactionType) || []
  for (const list of COMPONENT_LISTS) {
    if (definition[list] === undefined) continue
    if (!allowed.includes(list)) fail(`${path}.${list} is not allowed for interactionType ${JSON.stringify(definition.interactionType)}`)
    const ids = new Set()
    for (const c of definition[list]) {
      if (ids.has(c.id)) fail(`${path}.${list} has the id "${c.id}" twice`)
      ids.add(c.id)
    }
  }
  if (definition.correctResponsesPattern !== undefined && definition.interactionType === undefined) {
    fail(`${path}.correctResponsesPattern requires an interactionType`)
  }
}

function assertObject (object, path) {
  const type = object.objectType || 'Activity'
  if (type === 'Agent' || type === 'Group') assertActor(object, path)
  else if (type === 'Activity') assertInteraction(object.definition, `${path}.definition`)
  else if (type === 'SubStatement') assertStatementBody(object, path)
}

// Data 2.4.6.2: revision and platform only when the object is an Activity.
function assertContext (context, object, path) {
  if (!context) return
  const objectType = object.objectType || 'Activity'
  if (objectType !== 'Activity') {
    if (context.revision !== undefined) fail(`${path}.revision is only allowed when the object is an Activity`)
    if (context.platform !== undefined) fail(`${path}.platform is only allowed when the object is an Activity`)
  }
  if (context.instructor) assertActor(context.instructor, `${path}.instructor`)
  if (context.team) assertActor(context.team, `${path}.team`)
  forEachContextActivity(context.contextActivities, (a, key) => assertInteraction(a.definition, `${path}.contextActivities.${key}`))
  if (context.contextAgents) context.contextAgents.forEach((c, i) => assertActor(c.agent, `${path}.contextAgents[${i}].agent`))
  if (context.contextGroups) {
    context.contextGroups.forEach((c, i) => assertActor(c.group, `${path}.contextGroups[${i}].group`))
  }
}

function assertStatementBody (s, path) {
  assertActor(s.actor, `${path}.actor`)
  assertObject(s.object, `${path}.object`)
  if (s.result) assertScore(s.result.score, `${path}.result.score`)
  assertContext(s.context, s.object, `${path}.context`)
  // Data 2.3.2: a voiding statement's object is a StatementRef.
  if (s.verb.id === VOIDED_VERB && s.object.objectType !== 'StatementRef') {
    fail(`${path}.object must be a StatementRef when the verb is ${VOIDED_VERB}`)
  }
}

// Data 2.4.10: `version` starts with "1.0." (2.0 also takes 2.0.0).
function assertVersion (version, xapiVersion) {
  if (version === undefined) return
  const ok = /^1\.0(\.[0-9]+)?$/.test(version) || (xapiVersion === '2.0.0' && /^2\.0(\.[0-9]+)?$/.test(version))
  if (!ok) fail(`statement.version "${version}" is not supported`)
}

function assertStatementRules (statement, xapiVersion) {
  assertStatementBody(statement, 'statement')
  if (statement.authority) assertAuthority(statement.authority)
  assertVersion(statement.version, xapiVersion)
}

module.exports = { assertStatementRules, assertActor, VOIDED_VERB }
