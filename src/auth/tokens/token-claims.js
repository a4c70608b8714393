'use strict'

// What a verified access token's claims grant here: this LRS's scopes, the
// client it was given to, and the store it acts in. Issuers name these in
// their own ways; the configuration says which claim holds what.

const { KNOWN_SCOPES } = require('../scopes')
const { TokenRefusal } = require('./token-refusal')

// The LRS's scopes among the claim's values (a space-separated string as in
// RFC 8693 `scope`, or an array as in `scp` and `roles`), prefix taken off;
// anything else is the issuer's business and grants nothing here.
function scopesOf (claims, { claim, prefix }) {
  const value = claims[claim]
  const names = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value.filter((v) => typeof v === 'string') : []
  const out = new Set()
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    const scope = name.slice(prefix.length)
    if (KNOWN_SCOPES.has(scope)) out.add(scope)
  }
  return [...out]
}

// The client the token was given to (RFC 9068 `client_id`, OpenID's `azp`),
// or its subject when the issuer names no client.
function clientOf (claims) {
  for (const name of ['client_id', 'azp', 'sub']) {
    if (typeof claims[name] === 'string' && claims[name]) return claims[name]
  }
  return null
}

// Throws unless the token's `iat` (when it has one) is no later than
// `toleranceS` past `nowMs`. jose checks `iat` only along with a maximum
// age, so a token stamped an hour ahead (a forger's, or an issuer's clock
// gone wrong) would pass; the clock tolerance is the only leeway promised
// (LRS_OIDC_CLOCK_TOLERANCE_S), as for `exp` and `nbf`.
function assertIssuedBefore (claims, { nowMs, toleranceS }) {
  const ahead = claims.iat - nowMs / 1000
  if (ahead > toleranceS) throw new TokenRefusal('the token was issued in the future', `iat is ${Math.round(ahead)} s ahead of this LRS's clock`)
}

// A value fit for an RFC 6750 error_description: printable ASCII without
// `"` or `\`.
function describable (text) {
  return String(text).replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, '?').slice(0, 200)
}

module.exports = { scopesOf, clientOf, describable, assertIssuedBefore }
