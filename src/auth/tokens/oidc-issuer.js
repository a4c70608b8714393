'use strict'

// One OpenID Connect issuer of LRS_OIDC_ISSUERS: its discovery document
// and its keys, and the check of a token it signed.
//
// Keys are fetched when the first token of the issuer arrives, never per
// request: they are used for KEYS_MAX_AGE_MS and then fetched again in the
// background while the old ones go on serving. A token whose key id they
// lack (the issuer rotated its keys) has them fetched at once, at most
// every REFETCH_GAP_MS, so made-up key ids cannot turn requests into
// fetches. While the issuer cannot be reached the keys held go on serving
// for STALE_MAX_MS: an outage at the provider does not stop the tokens it
// gave.
//
// What a token must be: signed by one of the issuer's keys with an
// asymmetric algorithm the issuer lists (never `none`, never HMAC, so a
// public key cannot be used as an HMAC secret), with the issuer's `iss`,
// the configured `aud`, an `exp` still to come and an `iat` already past
// (both within the clock tolerance). jose never follows a token's own
// `jku`, `x5u` or embedded `jwk`: the keys are the issuer's.

const jose = require('jose')
const { TokenRefusal, refusalOfJoseError } = require('./token-refusal')
const { assertIssuedBefore } = require('./token-claims')
const { isTrustedUrl } = require('../../config')

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']
const KEYS_MAX_AGE_MS = 10 * 60 * 1000
const REFETCH_GAP_MS = 5000
const STALE_MAX_MS = 24 * 60 * 60 * 1000
const FETCH_TIMEOUT_MS = 5000
const MAX_DOCUMENT_BYTES = 1024 * 1024

// `refetchGapMs`: tests only (a rotation seen without waiting 5 s).
function createOidcIssuer ({ issuer, audience, clockToleranceS, logger, now = Date.now, refetchGapMs = REFETCH_GAP_MS }) {
  let metadata = null // { jwksUri, algorithms }
  let keys = null // { set, fetchedAt }
  let loading = null
  let lastFetch = -Infinity

  // Shared by concurrent callers; refused within REFETCH_GAP_MS of the
  // last attempt (false then).
  function fetchKeys () {
    if (loading) return loading
    if (now() - lastFetch < refetchGapMs) return Promise.resolve(false)
    lastFetch = now()
    loading = (async () => {
      if (!metadata) metadata = await discover()
      const jwks = await fetchJson(metadata.jwksUri)
      if (!jwks || !Array.isArray(jwks.keys)) throw new Error(`the issuer's JWKS at ${metadata.jwksUri} has no keys`)
      keys = { set: jose.createLocalJWKSet(jwks), fetchedAt: now() }
      logger.info({ issuer, keys: jwks.keys.length }, 'issuer keys fetched')
      return true
    })().catch((err) => {
      logger.warn({ err, issuer }, 'could not fetch the issuer\'s keys')
      return false
    }).finally(() => { loading = null })
    return loading
  }

  async function discover () {
    const doc = await fetchJson(new URL('.well-known/openid-configuration', issuer.endsWith('/') ? issuer : issuer + '/').href)
    // OpenID Connect Discovery 4.3: the document must name this very issuer
    if (!doc || doc.issuer !== issuer) throw new Error(`the discovery document of ${issuer} names another issuer (${doc && doc.issuer})`)
    if (typeof doc.jwks_uri !== 'string' || !isTrustedUrl(doc.jwks_uri)) throw new Error(`the discovery document of ${issuer} has no https jwks_uri`)
    const listed = doc.id_token_signing_alg_values_supported
    const algorithms = Array.isArray(listed) ? ASYMMETRIC.filter((a) => listed.includes(a)) : ASYMMETRIC
    return { jwksUri: doc.jwks_uri, algorithms: algorithms.length ? algorithms : ['RS256'] }
  }

  async function currentKeys () {
    const age = keys ? now() - keys.fetchedAt : Infinity
    if (age > KEYS_MAX_AGE_MS && keys) fetchKeys() // in the background; these serve meanwhile
    if (!keys) await fetchKeys()
    const unreachable = (detail) => new TokenRefusal('the token\'s issuer cannot be reached to check it', detail, { transient: true })
    if (!keys) throw unreachable(`no keys of ${issuer}`)
    if (now() - keys.fetchedAt > STALE_MAX_MS) throw unreachable(`the keys of ${issuer} are older than a day`)
    return keys
  }

  async function verifyWith ({ set }, token) {
    const t = now() // one clock for exp, nbf and iat
    const { payload } = await jose.jwtVerify(token, set, {
      issuer,
      audience,
      algorithms: metadata.algorithms,
      clockTolerance: clockToleranceS,
      currentDate: new Date(t),
      requiredClaims: ['exp']
    })
    assertIssuedBefore(payload, { nowMs: t, toleranceS: clockToleranceS })
    return payload
  }

  // The token's claims, once it is proven to be this issuer's; throws a
  // TokenRefusal otherwise.
  async function verify (token) {
    try {
      return await verifyWith(await currentKeys(), token)
    } catch (err) {
      if (err.code !== 'ERR_JWKS_NO_MATCHING_KEY') throw refusalOfJoseError(err) || err
      // a key the issuer may have added since: asked for again, unless it
      // was just now (then the token may pass a moment later)
      if (!(await fetchKeys())) throw new TokenRefusal('no key of the issuer matches the token', 'no key of the issuer matches the token, and its keys were fetched moments ago', { transient: true })
    }
    try {
      return await verifyWith(keys, token)
    } catch (err) {
      throw refusalOfJoseError(err) || err
    }
  }

  return { issuer, verify }
}

async function fetchJson (url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'error', headers: { accept: 'application/json' } })
  if (!res.ok) throw new Error(`${url} answered ${res.status}`)
  const body = Buffer.from(await res.arrayBuffer())
  if (body.length > MAX_DOCUMENT_BYTES) throw new Error(`${url} sent more than ${MAX_DOCUMENT_BYTES} bytes`)
  return JSON.parse(body.toString('utf8'))
}

module.exports = { createOidcIssuer, ASYMMETRIC }
