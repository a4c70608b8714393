'use strict'

// `Authorization: Bearer <JWT>` (RFC 6750): the token's issuer is found by
// its `iss` (read before anything is verified, only to pick whose keys
// check it), and that issuer checks it: this LRS (lrs-issuer.js) or one of
// LRS_OIDC_ISSUERS (oidc-issuer.js). Any other issuer, and any token that
// does not verify, is 401 with `WWW-Authenticate: Bearer error=
// "invalid_token"` and a description; the log says why, never the token.
//
// A verified token is remembered (by its digest) until it expires, so a
// request with a token costs what one with Basic does: a hash and a map
// lookup. What was remembered is checked again when the credentials or
// the stores change (a revoked credential, a deleted store), and a
// refused token is answered without a signature check for a minute.
//
// A token of an outside issuer acts in the store its LRS_OIDC_STORE_CLAIM
// names (the default store without one), with the scopes of its
// LRS_OIDC_SCOPE_CLAIM, and its statements' authority is its client: an
// Agent with an account on the issuer.

const crypto = require('node:crypto')
const jose = require('jose')
const { errors } = require('../../errors')
const { BoundedMap } = require('../../lib/bounded-map')
const { DEFAULT_STORE } = require('../../stores/store-keys')
const { createOidcIssuer } = require('./oidc-issuer')
const { TokenRefusal, refusalOfJoseError } = require('./token-refusal')
const { scopesOf, clientOf, describable } = require('./token-claims')

const MAX_TOKEN_LENGTH = 8192
const MAX_REMEMBERED = 10000
const REFUSAL_MEMORY_MS = 60000

// `refetchGapMs`: tests only (oidc-issuer.js).
function createBearerTokens ({ config, credentials, stores, lrsIssuer, logger, now = Date.now, refetchGapMs }) {
  const issuers = new Map(config.oidcIssuers.map((issuer) => [issuer, createOidcIssuer({ issuer, audience: config.oidcAudience, clockToleranceS: config.oidcClockToleranceS, logger, now, refetchGapMs })]))
  const verified = new BoundedMap(MAX_REMEMBERED) // digest -> { credential, until, generation, base }
  const refused = new BoundedMap(MAX_REMEMBERED) // digest -> { refusal, until }

  // The credential a token acts as, or throws 401.
  async function credentialOf (token) {
    const digest = crypto.createHash('sha256').update(token).digest('base64')
    const t = now()
    const hit = verified.get(digest)
    if (hit && hit.until > t && hit.generation === credentials.generation() && (!hit.base || credentials.current(hit.base.key) === hit.base)) return hit.credential
    const no = refused.get(digest)
    if (no && no.until > t) throw unauthorized(no.refusal)
    const generation = credentials.generation()
    try {
      const { credential, until, base } = await verify(token)
      verified.set(digest, { credential, until, generation, base })
      refused.delete(digest)
      return credential
    } catch (err) {
      if (!(err instanceof TokenRefusal)) throw err
      logger.info({ reason: err.detail }, 'bearer token refused')
      if (!err.transient) refused.set(digest, { refusal: err, until: t + REFUSAL_MEMORY_MS })
      throw unauthorized(err)
    }
  }

  async function verify (token) {
    if (token.length > MAX_TOKEN_LENGTH) throw new TokenRefusal('the token is too long')
    let claims
    try {
      claims = jose.decodeJwt(token)
    } catch (err) {
      throw refusalOfJoseError(err) || err
    }
    if (claims.iss === lrsIssuer.issuer) {
      const { credential, scopes } = await lrsIssuer.verify(token)
      return { credential: { ...credential, scopes, viaToken: true }, until: claims.exp * 1000, base: credential }
    }
    const issuer = typeof claims.iss === 'string' && issuers.get(claims.iss)
    if (!issuer) throw new TokenRefusal('the token\'s issuer is not trusted by this LRS', `issuer ${describable(claims.iss)}`)
    const proven = await issuer.verify(token)
    return { credential: await outsideCredential(proven, issuer.issuer), until: proven.exp * 1000 }
  }

  async function outsideCredential (claims, issuer) {
    const client = clientOf(claims)
    if (!client) throw new TokenRefusal('the token names no client', 'no client_id, azp or sub')
    const storeId = claims[config.oidcStoreClaim]
    let store = DEFAULT_STORE
    if (storeId !== undefined) {
      const found = typeof storeId === 'string' && (await stores.all()).find((s) => s.id === storeId)
      if (!found) throw new TokenRefusal('the token\'s store does not exist', `store ${describable(storeId)}`)
      store = found.number
    }
    return {
      key: `${client}@${new URL(issuer).host}`, // what logs and the xAPI version memory name it by
      scopes: scopesOf(claims, { claim: config.oidcScopeClaim, prefix: config.oidcScopePrefix }),
      store,
      authority: { objectType: 'Agent', name: client, account: { homePage: issuer, name: client } },
      viaToken: true
    }
  }

  return { credentialOf }
}

function unauthorized (refusal) {
  return errors.Unauthorized(refusal.message, { headers: { 'WWW-Authenticate': `Bearer realm="xAPI", error="invalid_token", error_description="${describable(refusal.message)}"` } })
}

module.exports = { createBearerTokens }
