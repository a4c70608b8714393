'use strict'

// Turns a validated statement into what the write path stores: the
// statement as it will be returned, and its storage document.

const crypto = require('node:crypto')
const { toUtcTimestamp } = require('../../validation/formats')
const { VOIDED_VERB } = require('../../validation/statement-rules')
const { queryFields } = require('./query-fields')
const { agentKey } = require('./agent-keys')

// Data 2.4.6.2.s4.b3: context activities are returned as arrays even when
// a single object was sent.
function withContextActivityArrays (s) {
  const ca = s.context && s.context.contextActivities
  if (!ca) return s
  let allArrays = true
  for (const k in ca) if (!Array.isArray(ca[k])) allArrays = false
  if (allArrays) return s
  const out = {}
  for (const [k, v] of Object.entries(ca)) out[k] = Array.isArray(v) ? v : [v]
  return { ...s, context: { ...s.context, contextActivities: out } }
}

// Data 2.4: the LRS sets id if absent, stored, authority (from the
// credential), version if absent, and timestamp = stored if absent
// (2.0 §4.2.4.2). Timestamps are kept in UTC (2.0 §4.2.7).
function toRecord (statement, { stored, storedIso = stored.toISOString(), authority, xapiVersion }) {
  const id = statement.id ? statement.id.toLowerCase() : crypto.randomUUID()
  const s = withContextActivityArrays({ id, ...statement })
  s.id = id
  if (s.object.objectType === 'SubStatement') s.object = withContextActivityArrays(s.object)
  s.timestamp = statement.timestamp ? toUtcTimestamp(statement.timestamp) : storedIso
  s.stored = storedIso
  s.authority = authority
  s.version = statement.version || (xapiVersion === '2.0.0' ? '2.0.0' : '1.0.0')
  const ref = s.object.objectType === 'StatementRef' ? s.object.id.toLowerCase() : null
  // The record keeps the storage document only: the parsed statement can be
  // collected while the batch waits (the rare conflict check re-reads the
  // body), which keeps batch data out of the old generation.
  return {
    xapiVersion,
    doc: {
      _id: id,
      stored,
      body: JSON.stringify(s),
      voided: false,
      voiding: s.verb.id === VOIDED_VERB,
      ref,
      referenced: false,
      authorityKey: agentKey(authority), // for credentials limited to statements/read/mine
      ...queryFields(s)
    }
  }
}

module.exports = { toRecord }
