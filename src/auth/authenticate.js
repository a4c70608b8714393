'use strict'

const { errors } = require('../errors')
const { allows, scopesAllowing } = require('./scopes')
const { closeIfLargeBody } = require('../http/unread-body')
const { STORE_ID } = require('../stores/store-directory')

// Authentication (xAPI 1.0.3 Communication 4.0): HTTP Basic or an OAuth 2.0
// bearer token, done before the request body is read: a request without
// valid credentials gets 401 and never spends the in-flight byte budget
// (see unread-body.js for what becomes of the body).
//
// 1.0.3's alternate request syntax (`POST ?method=...`) may carry the
// credentials in its form body; such requests without an Authorization
// header are authenticated after their (small) body is read, by requireScope.
//
// `X-LRS-Store: <id>`: a credential with stores/admin acts in that store
// for the request, as a credential of it with the same scopes would (the
// console's store switcher). stores/admin may make such a credential
// anyway, so the header gives it nothing it could not have; any other
// credential is refused it (403). What covers every store (the credentials
// of all) then covers the chosen one only (`storeChosen`). `storeNamed(id)`:
// the store, or NotFound.
const STORE_HEADER = 'x-lrs-store'
const STORE_ID_PATTERN = new RegExp(STORE_ID)

async function inChosenStore (req, credential, storeNamed) {
  const id = req.headers[STORE_HEADER]
  if (id === undefined) return credential
  if (!allows(credential.scopes, 'stores')) throw errors.Forbidden('X-LRS-Store needs the scope stores/admin')
  if (!STORE_ID_PATTERN.test(id)) throw errors.BadRequest('X-LRS-Store is not a store id')
  return { ...credential, store: (await storeNamed(id)).number, storeChosen: true }
}

// The credential a request acts as, from its Authorization header: HTTP
// Basic (a credential's key and secret; unless LRS_BASIC_AUTH=off) or a
// bearer token (tokens/bearer-tokens.js), or, for a request without that
// header, the console's single sign-on session (`sessions`, a cookie; only
// when single sign-on is configured). Throws 401 (with the challenge the
// client should answer), 403 (a session's request without its CSRF token)
// or 429 (failed Basic attempts over their limit).
function createAuthenticator ({ config, credentials, tokens, sessions = null }) {
  const basicOn = config.basicAuth !== 'off'
  const challenge = basicOn ? 'Basic realm="xAPI"' : 'Bearer realm="xAPI"'
  const refusal = (message) => errors.Unauthorized(message, { headers: { 'WWW-Authenticate': challenge } })
  const required = basicOn ? 'Valid HTTP Basic credentials or a bearer token are required' : 'A valid bearer token is required (HTTP Basic is turned off on this LRS)'

  // `basicEvenIfOff`: POST /oauth/token, where a key and secret buy a token
  async function credentialOf (header, address, { basicEvenIfOff = false } = {}) {
    if (typeof header === 'string' && /^basic /i.test(header)) {
      if (!basicOn && !basicEvenIfOff) throw refusal('HTTP Basic is turned off on this LRS (LRS_BASIC_AUTH=off): send a bearer token')
      const credential = await credentials.authenticate(header, address)
      if (!credential) throw refusal(required)
      return credential
    }
    if (typeof header === 'string' && /^bearer /i.test(header)) return tokens.credentialOf(header.slice(7).trim())
    throw refusal(required)
  }

  async function credentialOfRequest (req) {
    if (sessions && req.headers.authorization === undefined) {
      const credential = await sessions.credentialOf(req)
      if (credential) return credential
    }
    return credentialOf(req.headers.authorization, req.ip)
  }

  return { credentialOf, credentialOfRequest }
}

function authenticate (authenticator, { storeNamed }) {
  return async function authenticateRequest (req, res, next) {
    if (req.headers.authorization === undefined && req.query.method !== undefined && req.method === 'POST') {
      req.authDeferred = true
      return next()
    }
    try {
      const credential = await authenticator.credentialOfRequest(req)
      req.credential = await inChosenStore(req, credential, storeNamed)
    } catch (err) {
      closeIfLargeBody(req, res)
      return next(err)
    }
    next()
  }
}

// The credential's scopes must allow `need` (Communication 4.2).
function requireScope (authenticator, need, { storeNamed } = {}) {
  return async function checkScope (req, res, next) {
    if (!req.credential) {
      const credential = await authenticator.credentialOfRequest(req)
      req.credential = storeNamed ? await inChosenStore(req, credential, storeNamed) : credential
    }
    if (!allows(req.credential.scopes, need)) {
      const allowed = scopesAllowing(need)
      // RFC 6750 3.1: a token that lacks the scope says so in its challenge
      const headers = req.credential.viaToken ? { 'WWW-Authenticate': `Bearer realm="xAPI", error="insufficient_scope", scope="${allowed.join(' ')}"` } : undefined
      throw errors.Forbidden(`this request needs one of the scopes ${allowed.join(', ')}; the credential has ${req.credential.scopes.join(', ') || 'none'}`, { headers })
    }
    next()
  }
}

// The authority Agent the LRS puts on statements stored with a credential.
function authorityFor (credential, config) {
  if (credential.authority) return credential.authority // a token of an outside issuer: its client there
  return { objectType: 'Agent', name: credential.key, account: { homePage: config.authorityHomePage, name: credential.key } }
}

module.exports = { createAuthenticator, authenticate, requireScope, authorityFor }
