'use strict'

// The statement write path, step by step as the spec says it
// (Communication 2.1.1 PUT, 2.1.2 POST; Data 2.4 for the properties the
// LRS sets). Reads nothing from the database: conflicts surface as
// duplicate keys on insert and only then are compared (in the batcher).

const { errors } = require('../../errors')
const { authorityFor } = require('../../auth/basic-auth')
const { verifySignature, SIGNATURE_USAGE } = require('./signatures')
const { toRecord } = require('./statement-record')
const { agentKey } = require('./agent-keys')

function createStatementWriter ({ config, validator, batcher, attachments }) {
  // `texts`: each statement's JSON text as sent, when known (see statement-texts.js).
  async function storeStatements ({ statements, texts, parts, credential, xapiVersion }) {
    validateEach(statements, xapiVersion)
    assertUniqueIds(statements)
    verifySignatures(statements, parts, xapiVersion)
    const stored = new Date()
    const authority = authorityFor(credential, config)
    const shared = { stored, storedIso: stored.toISOString(), authority, authorityJson: JSON.stringify(authority), authorityKey: agentKey(authority), xapiVersion }
    const sent = texts && texts.length === statements.length ? texts : null
    const records = statements.map((s, i) => toRecord(s, shared, sent ? sent[i] : undefined))
    await attachments.saveMany(attachmentParts(parts))
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

  function attachmentParts (parts) {
    if (!parts.size) return []
    const out = []
    for (const [sha2, part] of parts) out.push({ sha2, contentType: part.contentType, body: part.body })
    return out
  }

  return { storeStatements }
}

module.exports = { createStatementWriter }
