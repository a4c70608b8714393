'use strict'

// Turns a validated statement into what the write path stores: the
// statement as it will be returned, and its storage document.

const crypto = require('node:crypto')
const { toUtcTimestamp } = require('../../validation/formats')
const { VOIDED_VERB } = require('../../validation/statement-rules')
const { queryFields } = require('./query-fields')
const { agentKey } = require('./agent-keys')

function contextActivitiesAreArrays (s) {
  const ca = s.context && s.context.contextActivities
  if (!ca) return true
  for (const k in ca) if (!Array.isArray(ca[k])) return false
  return true
}

// Data 2.4.6.2.s4.b3: context activities are returned as arrays even when
// a single object was sent.
function withContextActivityArrays (s) {
  if (contextActivitiesAreArrays(s)) return s
  const out = {}
  for (const [k, v] of Object.entries(s.context.contextActivities)) out[k] = Array.isArray(v) ? v : [v]
  return { ...s, context: { ...s.context, contextActivities: out } }
}

// The client's own text can be stored as it is, with the LRS's properties
// appended, when none of them is there already and nothing in it needs
// normalising. Otherwise the statement is serialised again.
function keepsClientText (s) {
  return s.stored === undefined && s.authority === undefined &&
    (s.id === undefined || s.id === s.id.toLowerCase()) &&
    (s.timestamp === undefined || toUtcTimestamp(s.timestamp) === s.timestamp) &&
    contextActivitiesAreArrays(s) &&
    (s.object.objectType !== 'SubStatement' || contextActivitiesAreArrays(s.object))
}

function defaultVersion (xapiVersion) {
  return xapiVersion === '2.0.0' ? '2.0.0' : '1.0.0'
}

// `text` ends with the statement's closing brace; a valid statement has
// properties, so what is appended starts with a comma.
function appendLrsProperties (text, s, { id, storedIso, authorityJson, xapiVersion }) {
  let added = ''
  if (s.id === undefined) added += `,"id":"${id}"`
  if (s.timestamp === undefined) added += `,"timestamp":"${storedIso}"`
  added += `,"stored":"${storedIso}","authority":${authorityJson}`
  if (s.version === undefined) added += `,"version":"${defaultVersion(xapiVersion)}"`
  return text.slice(0, text.lastIndexOf('}')) + added + '}'
}

function serialize (statement, { id, storedIso, authority, xapiVersion }) {
  const s = withContextActivityArrays({ id, ...statement })
  s.id = id
  if (s.object.objectType === 'SubStatement') s.object = withContextActivityArrays(s.object)
  s.timestamp = statement.timestamp ? toUtcTimestamp(statement.timestamp) : storedIso
  s.stored = storedIso
  s.authority = authority
  s.version = statement.version || defaultVersion(xapiVersion)
  return JSON.stringify(s)
}

// Data 2.4: the LRS sets id if absent, stored, authority (from the
// credential), version if absent, and timestamp = stored if absent
// (2.0 §4.2.4.2). Timestamps are kept in UTC (2.0 §4.2.7). `text` is the
// statement's JSON as the client sent it, when known.
function toRecord (statement, {
  stored, storedIso = stored.toISOString(), authority, xapiVersion,
  authorityJson = JSON.stringify(authority), authorityKey = agentKey(authority)
}, text) {
  const id = statement.id ? statement.id.toLowerCase() : crypto.randomUUID()
  const parts = { id, storedIso, authority, authorityJson, xapiVersion }
  const body = text !== undefined && keepsClientText(statement) ? appendLrsProperties(text, statement, parts) : serialize(statement, parts)
  const object = statement.object
  const ref = object.objectType === 'StatementRef' ? object.id.toLowerCase() : null
  // The record keeps the storage document only: the parsed statement can be
  // collected while the batch waits (the rare conflict check re-reads the
  // body), which keeps batch data out of the old generation.
  return {
    xapiVersion,
    doc: {
      _id: id,
      stored,
      body,
      voided: false,
      voiding: statement.verb.id === VOIDED_VERB,
      ref,
      referenced: false,
      authorityKey, // for credentials limited to statements/read/mine
      ...queryFields(statement, authority)
    }
  }
}

module.exports = { toRecord }
