'use strict'

// Why a bearer token was refused: `description` is what the client reads
// (RFC 6750 error_description), `detail` what the log says (never the
// token itself). `transient`: the token may pass a moment later (its
// issuer's keys could not be fetched yet), so the refusal is not remembered.

class TokenRefusal extends Error {
  constructor (description, detail = description, { transient = false } = {}) {
    super(description)
    this.name = 'TokenRefusal'
    this.detail = detail
    this.transient = transient
  }
}

// jose's error codes, as a client should read them. Anything else (a key
// that cannot be imported, a claim of the wrong type) is "not valid".
const JOSE_REASONS = {
  ERR_JWT_EXPIRED: 'the token has expired',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'the token\'s signature does not verify',
  ERR_JOSE_ALG_NOT_ALLOWED: 'the token is signed with an algorithm its issuer does not use',
  ERR_JWKS_NO_MATCHING_KEY: 'no key of the issuer matches the token',
  ERR_JWS_INVALID: 'the token is not a signed JWT',
  ERR_JWT_INVALID: 'the token is not a signed JWT',
  ERR_JOSE_NOT_SUPPORTED: 'the token is signed with an algorithm its issuer does not use'
}

const CLAIM_REASONS = {
  nbf: 'the token is not valid yet',
  iat: 'the token was issued in the future',
  iss: 'the token is from another issuer',
  aud: 'the token is for another audience',
  exp: 'the token has no expiry',
  sub: 'the token names no subject',
  typ: 'the token is not an access token'
}

// A jose error as a refusal; other errors are not the token's fault and
// go on as they are.
function refusalOfJoseError (err) {
  if (err instanceof TokenRefusal) return err
  if (!err || typeof err.code !== 'string' || !(err.code.startsWith('ERR_J') || err.code === 'ERR_JOSE_NOT_SUPPORTED')) return null
  const reason = (err.code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' && CLAIM_REASONS[err.claim]) || JOSE_REASONS[err.code] || 'the token is not valid'
  return new TokenRefusal(reason, `${err.code}: ${err.message}`)
}

module.exports = { TokenRefusal, refusalOfJoseError }
