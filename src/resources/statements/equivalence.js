'use strict'

// Statement comparison (Data 2.3.1 "Statement Comparison Requirements";
// 2.0 §4.1.6.1): differences that the immutability exceptions allow are
// ignored — id, authority, stored, timestamp and version (which the LRS may
// assign, Data 2.3.1.b1; 2.0 lists timestamp outright), attachments,
// Activity definitions, Verb display, Group member order, case of
// case-insensitive values. 2.0 also ignores duration
// precision beyond 0.01 s (§4.2.7); 1.0.3 compares durations as strings.
// Used for 409 conflict checks and for signature verification.

const { agentKey, canonicalMbox } = require('../agents/agent-keys')
const { mapContextActivities } = require('../../validation/context-activities')

function normalizeActor (actor) {
  if (!actor) return actor
  const out = { ...actor }
  if (out.mbox) out.mbox = canonicalMbox(out.mbox)
  if (out.mbox_sha1sum) out.mbox_sha1sum = out.mbox_sha1sum.toLowerCase()
  if (out.objectType === 'Agent') delete out.objectType
  if (Array.isArray(out.member)) {
    out.member = out.member.map(normalizeActor).sort((a, b) => (agentKey(a) || '').localeCompare(agentKey(b) || ''))
  }
  return out
}

function normalizeActivity (activity) {
  return { id: activity.id }
}

function truncateDuration (duration) {
  return duration.replace(/(\d+)[.,](\d{1,2})\d*S$/, (m, s, f) => `${s}.${f.padEnd(2, '0')}S`).replace(/\.00S$/, 'S')
}

function normalizeContext (context) {
  if (!context) return context
  const out = { ...context }
  if (out.registration) out.registration = out.registration.toLowerCase()
  if (out.instructor) out.instructor = normalizeActor(out.instructor)
  if (out.team) out.team = normalizeActor(out.team)
  if (out.contextActivities) out.contextActivities = mapContextActivities(out.contextActivities, normalizeActivity)
  if (out.contextAgents) out.contextAgents = out.contextAgents.map((c) => ({ ...c, agent: normalizeActor(c.agent) }))
  if (out.contextGroups) out.contextGroups = out.contextGroups.map((c) => ({ ...c, group: normalizeActor(c.group) }))
  return out
}

function normalize (s, { xapiVersion }) {
  const out = {
    actor: normalizeActor(s.actor),
    verb: { id: s.verb.id },
    object: normalizeObject(s.object, { xapiVersion }),
    result: s.result,
    context: normalizeContext(s.context)
  }
  if (out.result && out.result.duration && xapiVersion === '2.0.0') {
    out.result = { ...out.result, duration: truncateDuration(out.result.duration) }
  }
  return out
}

function normalizeObject (object, opts) {
  const type = object.objectType || 'Activity'
  if (type === 'Activity') return normalizeActivity(object)
  if (type === 'Agent' || type === 'Group') return normalizeActor(object)
  if (type === 'StatementRef') return { objectType: 'StatementRef', id: object.id.toLowerCase() }
  return { objectType: 'SubStatement', ...normalize(object, opts) }
}

// Deterministic serialization: keys sorted, undefined dropped.
function canonicalJson (value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  if (Array.isArray(value)) return '[' + value.map(canonicalJson).join(',') + ']'
  const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort()
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(value[k])).join(',') + '}'
}

function areEquivalent (a, b, { xapiVersion = '1.0.3' } = {}) {
  return canonicalJson(normalize(a, { xapiVersion })) === canonicalJson(normalize(b, { xapiVersion }))
}

module.exports = { areEquivalent }
