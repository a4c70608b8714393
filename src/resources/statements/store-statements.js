'use strict'

// The statement write path, step by step as the spec says it
// (Communication 2.1.1 PUT, 2.1.2 POST; Data 2.4 for the properties the
// LRS sets). Reads nothing from the database: conflicts surface as
// duplicate keys on insert and only then are compared (in the batcher).

const crypto = require('node:crypto')
const { errors } = require('../../errors')
const { toUtcTimestamp } = require('../../validation/formats')
const { authorityFor } = require('../../auth/basic-auth')
const { verifySignature, SIGNATURE_USAGE } = require('./signatures')
const { queryFields } = require('./query-fields')
const { VOIDED_VERB } = require('../../validation/statement-rules')

function createStatementWriter ({ config, validator, batcher, attachments }) {
  async function storeStatements ({ statements, parts, credential, xapiVersion }) {
    validateEach(statements, xapiVersion)
    assertUniqueIds(statements)
    verifySignatures(statements, parts, xapiVersion)
    const stored = new Date()
    const records = statements.map((s) => toRecord(s, { stored, credential, xapiVersion }))
    await attachments.saveMany(attachmentParts(statements, parts))
    await batcher.submit(records)
    return records.map((r) => r.doc._id)
  }

  function validateEach (statements, xapiVersion) {
    statements.forEach((s, i) => validator.validateStatement(s, xapiVersion, statements.length > 1 ? `statements[${i}]` : 'statement'))
  }

  // 2.0 §4.1.6.1 (1.0.3 Communication 2.1.2.s2.b6): one id twice in a batch is 400.
  function assertUniqueIds (statements) {
    const seen = new Set()
    for (const s of statements) {
      if (!s.id) continue
      const id = s.id.toLowerCase()
      if (seen.has(id)) throw errors.DuplicateStatementId(`statement id ${s.id} appears more than once in the request`)
      seen.add(id)
    }
  }

  function verifySignatures (statements, parts, xapiVersion) {
    for (const s of statements) {
      for (const a of s.attachments || []) {
        if (a.usageType !== SIGNATURE_USAGE) continue
        if (a.contentType.split(';')[0].trim().toLowerCase() !== 'application/octet-stream') {
          throw errors.InvalidSignature('a signature attachment must have contentType application/octet-stream')
        }
        const part = parts.get(a.sha2.toLowerCase())
        if (!part) throw errors.InvalidSignature('the signature attachment must be sent as a multipart part')
        verifySignature(s, part.body, { xapiVersion })
      }
    }
  }

  // Data 2.4: the LRS sets id if absent, stored, authority (from the
  // credential), version if absent, and timestamp = stored if absent
  // (2.0 §4.2.4.2). Timestamps are kept in UTC (2.0 §4.2.7).
  function toRecord (statement, { stored, credential, xapiVersion }) {
    const storedIso = stored.toISOString()
    const id = statement.id ? statement.id.toLowerCase() : crypto.randomUUID()
    const s = { id, ...statement }
    s.id = id
    normalizeContextActivities(s)
    if (s.object.objectType === 'SubStatement') {
      s.object = { ...s.object }
      normalizeContextActivities(s.object)
    }
    s.timestamp = statement.timestamp ? toUtcTimestamp(statement.timestamp) : storedIso
    s.stored = storedIso
    s.authority = authorityFor(credential, config)
    s.version = statement.version || (xapiVersion === '2.0.0' ? '2.0.0' : '1.0.0')
    const isStatementRef = s.object.objectType === 'StatementRef'
    return {
      statement: s,
      xapiVersion,
      doc: {
        _id: id,
        stored,
        body: JSON.stringify(s),
        voided: false,
        voiding: s.verb.id === VOIDED_VERB,
        ref: isStatementRef ? s.object.id.toLowerCase() : null,
        referenced: false,
        ...queryFields(s)
      }
    }
  }

  // Data 2.4.6.2.s4.b3: context activities are returned as arrays even when
  // a single object was sent.
  function normalizeContextActivities (s) {
    const ca = s.context && s.context.contextActivities
    if (!ca) return
    const out = {}
    for (const [k, v] of Object.entries(ca)) out[k] = Array.isArray(v) ? v : [v]
    s.context = { ...s.context, contextActivities: out }
  }

  function attachmentParts (statements, parts) {
    if (!parts.size) return []
    const out = []
    for (const [sha2, part] of parts) out.push({ sha2, contentType: part.contentType, body: part.body })
    return out
  }

  return { storeStatements }
}

module.exports = { createStatementWriter }
