'use strict'

// The LRS as an OAuth 2.0 issuer of its own (POST /oauth/token, the client
// credentials grant): a credential's key and secret buy a short-lived token
// with some or all of its scopes, so content and LMSs need not send the
// secret with every request.
//
// The token names the credential (`sub`) and the scopes granted; it acts
// with what the credential holds when it is used: the credential's store,
// and no scope the credential has lost since. A credential revoked is a
// token refused, on every worker within LRS_CREDENTIAL_POLL_MS. Its
// authority is the credential's own, so a client moving from Basic to
// tokens keeps reading its statements with `statements/read/mine`.
//
// Signing keys (ES256) change every LRS_TOKEN_KEY_ROTATION_S: the key of
// period p (time / rotation) is kept in the database as the setting
// `token-signing-key:<p>`, made by the first process that needs it, so
// every worker and host signs and checks with the same one. A token names
// its period in its key id; only the previous, current and next periods
// are accepted (a token lives no longer than one rotation).

const crypto = require('node:crypto')
const jose = require('jose')
const { TokenRefusal, refusalOfJoseError } = require('./token-refusal')
const { assertIssuedBefore } = require('./token-claims')
const { covers } = require('../scopes')

const ALGORITHM = 'ES256'
const TOKEN_TYPE = 'at+jwt' // RFC 9068

// `now`: tests only (a clock that crosses a rotation).
function createLrsIssuer ({ config, settings, credentials, now = Date.now }) {
  const issuer = config.authorityHomePage
  const rotationMs = config.tokenKeyRotationS * 1000
  const keys = new Map() // period -> Promise<{ kid, privateKey, publicKey, publicJwk }>
  const periodOf = (t) => Math.floor(t / rotationMs)

  function keyOf (period) {
    if (!keys.has(period)) {
      const made = settings.getOrCreate(`token-signing-key:${period}`, newKeyJson())
        .then((json) => keyFromJson(period, json))
      made.catch(() => keys.delete(period)) // a database hiccup is not remembered
      keys.set(period, made)
      for (const p of keys.keys()) if (p < period - 2) keys.delete(p)
    }
    return keys.get(period)
  }

  // A token for `credential` with `scopes` (some of its own), or, with
  // none asked for, acting with whatever scopes the credential holds when
  // it is used (the console's: it follows a change of the credential's
  // scopes as Basic would).
  async function issue (credential, scopes) {
    const t = now()
    const key = await keyOf(periodOf(t))
    const iat = Math.floor(t / 1000)
    const token = await new jose.SignJWT({ ...(scopes ? { scope: scopes.join(' ') } : {}), client_id: credential.key })
      .setProtectedHeader({ alg: ALGORITHM, kid: key.kid, typ: TOKEN_TYPE })
      .setIssuer(issuer)
      .setAudience(issuer)
      .setSubject(credential.key)
      .setIssuedAt(iat)
      .setExpirationTime(iat + config.tokenTtlS)
      .setJti(crypto.randomUUID())
      .sign(key.privateKey)
    return { token, expiresIn: config.tokenTtlS }
  }

  // The credential a token of ours acts as (its scopes narrowed to those
  // granted), or a TokenRefusal.
  async function verify (token) {
    let header
    try {
      header = jose.decodeProtectedHeader(token)
    } catch (err) {
      throw refusalOfJoseError(err) || err
    }
    const period = periodFromKid(header.kid)
    const current = periodOf(now())
    if (period === null || period < current - 1 || period > current + 1) throw new TokenRefusal('no key of the issuer matches the token', `key id ${String(header.kid).slice(0, 40)}`)
    const key = await keyOf(period)
    let payload
    try {
      ({ payload } = await jose.jwtVerify(token, key.publicKey, {
        issuer,
        audience: issuer,
        algorithms: [ALGORITHM],
        typ: TOKEN_TYPE,
        clockTolerance: config.oidcClockToleranceS,
        currentDate: new Date(now()),
        requiredClaims: ['exp', 'sub']
      }))
    } catch (err) {
      throw refusalOfJoseError(err) || err
    }
    assertIssuedBefore(payload, { nowMs: now(), toleranceS: config.oidcClockToleranceS })
    const credential = await credentials.lookup(payload.sub)
    if (!credential) throw new TokenRefusal('the credential the token was given to no longer exists', `credential ${payload.sub} is gone`)
    if (payload.scope === undefined) return { credential, scopes: credential.scopes }
    const granted = typeof payload.scope === 'string' ? payload.scope.split(' ') : []
    return { credential, scopes: granted.filter((s) => covers(credential.scopes, s)) }
  }

  // The public keys a relying party needs (GET /oauth/jwks.json).
  async function jwks () {
    const p = periodOf(now())
    return { keys: (await Promise.all([p - 1, p, p + 1].map(keyOf))).map((k) => k.publicJwk) }
  }

  return { issuer, issue, verify, jwks }
}

function newKeyJson () {
  const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return JSON.stringify(privateKey.export({ format: 'jwk' }))
}

function keyFromJson (period, json) {
  const jwk = JSON.parse(json)
  const kid = `lrs-${period}`
  const { d, ...pub } = jwk
  return {
    kid,
    privateKey: crypto.createPrivateKey({ key: jwk, format: 'jwk' }),
    publicKey: crypto.createPublicKey({ key: pub, format: 'jwk' }),
    publicJwk: { ...pub, kid, alg: ALGORITHM, use: 'sig' }
  }
}

function periodFromKid (kid) {
  const m = typeof kid === 'string' && /^lrs-(-?[0-9]{1,15})$/.exec(kid)
  return m ? Number(m[1]) : null
}

module.exports = { createLrsIssuer }
