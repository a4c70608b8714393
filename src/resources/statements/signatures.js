'use strict'

// Signed statements (Data 2.6): the signature attachment holds a JWS in
// compact serialization whose payload is the statement as signed. We check
// the form, the algorithm (RS256/384/512), that the payload is equivalent to
// the received statement, and the RSA signature when the header carries an
// x5c certificate. Anything malformed is 400 (Data 2.6.s5.b1).

const crypto = require('node:crypto')
const { errors } = require('../../errors')
const { areEquivalent } = require('./equivalence')
const { isJsonObject } = require('../../lib/json-object')

const SIGNATURE_USAGE = 'http://adlnet.gov/expapi/attachments/signature'
// Data 2.6.s4.b2: RS256, RS384 or RS512, and nothing else. A Map, so a
// client's `alg` is never looked up on an object's prototype.
const ALGORITHMS = new Map([['RS256', 'RSA-SHA256'], ['RS384', 'RSA-SHA384'], ['RS512', 'RSA-SHA512']])

function fail (message) {
  throw errors.InvalidSignature(message)
}

// Base64url as written, no more: a decoder skips stray characters and the
// unused bits of the last one, so other texts would pass as the same bytes.
function isCanonicalBase64url (segment) {
  return /^[A-Za-z0-9_-]*$/.test(segment) && Buffer.from(segment, 'base64url').toString('base64url') === segment
}

function decodeJson (segment, what) {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
  } catch {
    return fail(`signature ${what} is not valid base64url JSON`)
  }
}

function verifySignature (statement, jwsBuffer, { xapiVersion }) {
  const jws = jwsBuffer.toString('utf8').trim()
  const segments = jws.split('.')
  if (segments.length !== 3 || !segments.every(isCanonicalBase64url)) fail('signature is not a JWS in compact serialization')
  const header = decodeJson(segments[0], 'header')
  const payload = decodeJson(segments[1], 'payload')
  if (!isJsonObject(header)) fail('signature header is not a JSON object')
  const algorithm = typeof header.alg === 'string' ? ALGORITHMS.get(header.alg) : undefined
  if (!algorithm) fail('signature algorithm is not RS256, RS384 or RS512')
  if (payload === null || typeof payload !== 'object' || !payload.actor || !payload.verb || !payload.object) {
    fail('signature payload is not a statement')
  }
  let same = false
  try {
    same = areEquivalent(payload, statement, { xapiVersion })
  } catch {
    same = false
  }
  if (!same) fail('signature payload does not match the statement')
  // A certificate chain that is there but is not one is malformed, not
  // absent: skipping it would accept any signature.
  if (header.x5c !== undefined) {
    if (!Array.isArray(header.x5c) || !header.x5c.length || !header.x5c.every((c) => typeof c === 'string')) fail('signature x5c is not an array of certificates')
    let key
    try {
      key = new crypto.X509Certificate(Buffer.from(header.x5c[0], 'base64')).publicKey
    } catch {
      fail('signature x5c certificate cannot be read')
    }
    const ok = crypto.verify(algorithm, Buffer.from(`${segments[0]}.${segments[1]}`), key, Buffer.from(segments[2], 'base64url'))
    if (!ok) fail('signature does not verify against its x5c certificate')
  }
}

module.exports = { verifySignature, SIGNATURE_USAGE }
