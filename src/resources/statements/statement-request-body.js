'use strict'

// Reads the statements and attachment parts of a PUT/POST /statements body
// (Communication 1.5.2): application/json, or multipart/mixed with the
// statements first and one part per attachment, matched by
// X-Experience-API-Hash to an attachment's sha2.

const crypto = require('node:crypto')
const { errors } = require('../../errors')
const { parseMediaType } = require('../../http/media-type')
const { parseMultipart } = require('../../http/multipart')
const { scanJson } = require('../../validation/json-scan')
const { describeJsonError } = require('../../validation/json-syntax-error')

const SHA2_BY_HEX_LENGTH = new Map([[64, 'sha256'], [96, 'sha384'], [128, 'sha512']])

// The parsed body and the JSON text of each statement in it.
function parseJson (buffer, what, limits) {
  const text = buffer.toString('utf8')
  let body
  try {
    body = JSON.parse(text)
  } catch {
    throw errors.InvalidJson(`${what} is not valid JSON: ${describeJsonError(text)}`)
  }
  return { body, texts: scanJson(text, { ...limits, parsed: body }) }
}

function attachmentsOf (statements) {
  const list = []
  for (const s of statements) {
    if (s && Array.isArray(s.attachments)) list.push(...s.attachments)
    if (s && s.object && s.object.objectType === 'SubStatement' && Array.isArray(s.object.attachments)) list.push(...s.object.attachments)
  }
  return list
}

// Returns { body: parsed JSON (object or array), texts: each statement's JSON
// text (or null), parts: Map(sha2 -> { contentType, body }) }. `limits`:
// { maxDepth, maxStringLength } (see json-scan.js).
function readStatementBody (req, limits) {
  const { type, params } = parseMediaType(req.headers['content-type'])
  if (type === 'multipart/mixed') return readMultipart(req.rawBody, params.boundary, limits)
  if (type !== '' && type !== 'application/json') {
    throw errors.BadRequest(`Content-Type ${type} is not accepted here: send application/json or multipart/mixed`)
  }
  if (!req.rawBody.length) throw errors.InvalidJson('request body is empty')
  const { body, texts } = parseJson(req.rawBody, 'request body', limits)
  const statements = Array.isArray(body) ? body : [body]
  for (const a of attachmentsOf(statements)) {
    if (a && typeof a === 'object' && a.fileUrl === undefined) {
      throw errors.InvalidAttachments('an attachment without fileUrl must be sent as a multipart/mixed part')
    }
  }
  return { body, texts, parts: new Map() }
}

function readMultipart (rawBody, boundary, limits) {
  const [first, ...rest] = parseMultipart(rawBody, boundary)
  if (!first) throw errors.InvalidAttachments('multipart body has no statement part')
  if (parseMediaType(first.headers['content-type']).type !== 'application/json') {
    throw errors.InvalidAttachments('the first multipart part must be application/json with the statements')
  }
  const { body, texts } = parseJson(first.body, 'statement part', limits)
  const statements = Array.isArray(body) ? body : [body]
  const parts = new Map()
  for (const part of rest) {
    const hash = part.headers['x-experience-api-hash']
    if (!hash) throw errors.InvalidAttachments('every attachment part needs an X-Experience-API-Hash header')
    const encoding = part.headers['content-transfer-encoding']
    if (encoding && encoding.toLowerCase() !== 'binary') throw errors.InvalidAttachments('attachment parts must use Content-Transfer-Encoding: binary')
    // The part must be what its hash says (SHA-256/384/512 by length).
    const algorithm = SHA2_BY_HEX_LENGTH.get(hash.length)
    if (!algorithm || crypto.createHash(algorithm).update(part.body).digest('hex') !== hash.toLowerCase()) {
      throw errors.InvalidAttachments(`attachment part content does not match its X-Experience-API-Hash ${hash}`)
    }
    parts.set(hash.toLowerCase(), { contentType: part.headers['content-type'] || 'application/octet-stream', body: part.body })
  }
  const declared = new Set()
  for (const a of attachmentsOf(statements)) {
    if (!a || typeof a !== 'object' || typeof a.sha2 !== 'string') continue
    declared.add(a.sha2.toLowerCase())
    if (a.fileUrl === undefined && !parts.has(a.sha2.toLowerCase())) {
      throw errors.InvalidAttachments(`attachment ${a.sha2} has no fileUrl and no matching part`)
    }
  }
  for (const hash of parts.keys()) {
    if (!declared.has(hash)) throw errors.InvalidAttachments(`part ${hash} matches no attachment of the statements`)
  }
  return { body, texts, parts }
}

module.exports = { readStatementBody }
