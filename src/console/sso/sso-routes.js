'use strict'

// Single sign-on for the console (LRS_CONSOLE_OIDC_ISSUER): the browser is
// sent to the issuer (start), comes back with a code (callback), and gets
// a session cookie (sessions.js); the console's pages then call the APIs
// with that cookie and the session's CSRF token. Who may use the console,
// and with which scopes, comes from the person's groups
// (LRS_CONSOLE_OIDC_ROLES_CLAIM mapped by LRS_CONSOLE_OIDC_ROLES); their
// store from LRS_OIDC_STORE_CLAIM (the default store without it).
//
// Between start and callback the browser keeps the PKCE verifier, state
// and nonce in a short-lived HttpOnly cookie (SameSite=Lax: the issuer's
// redirect back is a top-level navigation from another site). Its
// `__Host-` name keeps other hosts and plain http from setting it.
//
// A failed sign-in goes back to the console with `?sso=<reason>` (a word
// from a fixed list the page turns into a sentence); the log has the why.

const { errors } = require('../../errors')
const { response, json } = require('../../http/openapi-parts')
const { cookieOf } = require('./sessions')

const LOGIN_COOKIE = '__Host-lrs-sso-login'
const LOGIN_MAX_AGE_MS = 10 * 60 * 1000
const LOGIN_COOKIE_OPTIONS = { httpOnly: true, secure: true, sameSite: 'lax', path: '/' }
const SESSION_COOKIE_OPTIONS = { httpOnly: true, secure: true, sameSite: 'strict', path: '/' }

function ssoRoutes ({ config, logger, sessions, ssoClient, storeNamed }) {
  const enabled = Boolean(sessions && ssoClient)
  const notConfigured = () => errors.NotFound('single sign-on is not configured (LRS_CONSOLE_OIDC_ISSUER)')

  async function state (req, res) {
    res.set('Cache-Control', 'no-store')
    if (!enabled) return res.json({ enabled: false, signedIn: false })
    const session = await sessions.find(cookieOf(req, sessions.COOKIE))
    if (!session) return res.json({ enabled: true, signedIn: false })
    res.json({ enabled: true, signedIn: true, name: session.name, subject: session.subject, scopes: session.scopes, store: session.storeId, csrf: session.csrf, expiresAt: new Date(session.expiresAt).toISOString() })
  }

  async function start (req, res) {
    if (!enabled) throw notConfigured()
    const { url, login } = await ssoClient.start()
    res.cookie(LOGIN_COOKIE, Buffer.from(JSON.stringify(login)).toString('base64url'), { ...LOGIN_COOKIE_OPTIONS, maxAge: LOGIN_MAX_AGE_MS })
    res.set('Cache-Control', 'no-store')
    res.redirect(303, url)
  }

  async function callback (req, res) {
    if (!enabled) throw notConfigured()
    res.set('Cache-Control', 'no-store')
    res.clearCookie(LOGIN_COOKIE, LOGIN_COOKIE_OPTIONS)
    const back = (reason) => res.redirect(303, `/console/${reason ? `?sso=${reason}` : ''}`)
    const login = loginOf(cookieOf(req, LOGIN_COOKIE))
    if (!login) {
      logger.info('console sign-in: a callback without a sign-in under way (or one older than 10 minutes)')
      return back('expired')
    }
    let person
    try {
      const { claims, idToken } = await ssoClient.finish(new URL(req.originalUrl, 'http://x').search, login)
      person = await personOf(claims, idToken)
    } catch (err) {
      if (err.reason) {
        logger.info({ subject: err.subject, reason: err.detail }, 'console sign-in refused')
        return back(err.reason)
      }
      logger.warn({ err }, 'console sign-in failed')
      return back('failed')
    }
    const id = await sessions.begin(person)
    res.cookie(sessions.COOKIE, id, { ...SESSION_COOKIE_OPTIONS, maxAge: config.consoleSessionMaxS * 1000 })
    logger.info({ subject: person.subject, store: person.storeId, scopes: person.scopes }, 'console signed in')
    back(null)
  }

  // The scopes the person's groups give and the store their claim names.
  async function personOf (claims, idToken) {
    const refuse = (reason, detail) => Object.assign(new Error(detail), { reason, detail, subject: claims.sub })
    const value = claims[config.consoleOidcRolesClaim]
    const groups = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((g) => typeof g === 'string') : []
    const scopes = [...new Set(groups.flatMap((g) => config.consoleOidcRoles.get(g) || []))]
    if (!scopes.includes('admin')) throw refuse('not-allowed', `no group of ${JSON.stringify(groups).slice(0, 200)} gives the admin scope`)
    let store = { number: 0, id: 'default' }
    const storeId = claims[config.oidcStoreClaim]
    if (storeId !== undefined) {
      try {
        store = await storeNamed(String(storeId))
      } catch (err) {
        if (err.status !== 404) throw err
        throw refuse('no-store', `store ${String(storeId).slice(0, 64)} does not exist`)
      }
    }
    const name = [claims.name, claims.preferred_username, claims.email, claims.sub].find((v) => typeof v === 'string' && v)
    return { subject: claims.sub, name, scopes, store: store.number, storeId: store.id, idToken }
  }

  async function signOut (req, res) {
    res.set('Cache-Control', 'no-store')
    if (!enabled) return res.json({ endSessionUrl: null })
    const id = cookieOf(req, sessions.COOKIE)
    const session = await sessions.find(id)
    if (session && !sessions.csrfMatches(session, req.headers['x-csrf-token'])) throw errors.Forbidden('signing out needs the session\'s CSRF token (X-CSRF-Token)')
    await sessions.end(id)
    res.clearCookie(sessions.COOKIE, SESSION_COOKIE_OPTIONS)
    let endSessionUrl = null
    if (session) {
      logger.info({ subject: session.subject }, 'console signed out')
      endSessionUrl = await ssoClient.endSessionUrl(session.idToken).catch((err) => {
        logger.warn({ err }, 'console sign-out: no end-session URL of the issuer')
        return null
      })
    }
    res.json({ endSessionUrl })
  }

  const stateSchema = {
    type: 'object',
    required: ['enabled', 'signedIn'],
    properties: {
      enabled: { type: 'boolean' },
      signedIn: { type: 'boolean' },
      name: { type: 'string' },
      subject: { type: 'string' },
      scopes: { type: 'array', items: { type: 'string' } },
      store: { type: 'string' },
      csrf: { type: 'string', description: 'Send it as X-CSRF-Token with every request the session\'s cookie authenticates.' },
      expiresAt: { type: 'string', format: 'date-time' }
    }
  }
  return [
    { method: 'get', path: '/sso', operationId: 'getConsoleSso', summary: 'The console\'s single sign-on: whether it is on, and the session of this browser', description: 'Answers from the session cookie; its CSRF token is given here only (same origin: no CORS).', scope: null, responses: { 200: response('Whether single sign-on is configured and, signed in, who, with which scopes and store, and the CSRF token.', { content: json(stateSchema) }) }, handler: state },
    { method: 'get', path: '/sso/start', operationId: 'startConsoleSso', summary: 'Sign in to the console with the identity provider (a redirect there)', scope: null, errors: [errors.NotFound], responses: { 303: response('To the issuer\'s authorization endpoint (code flow, PKCE).') }, handler: start },
    { method: 'get', path: '/sso/callback', operationId: 'finishConsoleSso', summary: 'Where the identity provider sends the browser back', description: 'Takes the query the issuer sends (code, state, iss, or error) and sets the session cookie (HttpOnly, Secure, SameSite=Strict); then to /console/, with `?sso=expired|not-allowed|no-store|failed` when the sign-in did not succeed.', scope: null, errors: [errors.NotFound], responses: { 303: response('Back to /console/.') }, handler: callback },
    { method: 'post', path: '/sso/sign-out', operationId: 'signOutConsoleSso', summary: 'End this browser\'s console session', description: 'Needs X-CSRF-Token with a session. The session ends on every worker at once; the answer names the issuer\'s end-session URL to go to, where it has one.', scope: null, errors: [errors.Forbidden], responses: { 200: response('Signed out.', { content: json({ type: 'object', required: ['endSessionUrl'], properties: { endSessionUrl: { type: ['string', 'null'] } } }) }) }, handler: signOut }
  ]
}

function loginOf (value) {
  if (typeof value !== 'string' || value.length > 2048) return null
  try {
    const login = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'))
    return login && typeof login.verifier === 'string' && typeof login.state === 'string' && typeof login.nonce === 'string' ? login : null
  } catch {
    return null
  }
}

module.exports = { ssoRoutes }
