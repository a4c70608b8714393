'use strict'

// The console's sessions after a single sign-on (sso-routes.js): the
// browser holds only a random id in an HttpOnly, Secure, SameSite=Strict
// cookie; what the session is (who, which scopes, which store, its CSRF
// token) is kept in the database, keyed by the id's SHA-256, so every
// worker and host sees it, and signing out ends it everywhere at once.
//
// A request authenticated by the cookie must carry the session's CSRF
// token in X-CSRF-Token, whatever its method: the console's pages read it
// from GET /console/sso, which no other origin can read (no CORS there),
// and SameSite=Strict keeps the cookie off requests from other sites in
// the first place.
//
// A session ends after LRS_CONSOLE_SESSION_IDLE_S without a request and
// LRS_CONSOLE_SESSION_MAX_S after its sign-in. Its last use (what the idle
// time is measured from) is written at most once a minute per worker, or
// once a tenth of the idle time where that is shorter: a session in use
// never ends for a use not written yet. Its `expiresAt` is counted from the
// use written, so it says when the session ends if not used again.

const crypto = require('node:crypto')
const { errors } = require('../../errors')
const { BoundedMap } = require('../../lib/bounded-map')

const COOKIE = '__Host-lrs-console'
const CSRF_HEADER = 'x-csrf-token'
const TOUCH_EVERY_MS = 60000

const hashOf = (id) => crypto.createHash('sha256').update(id).digest('base64url')

// `now`: tests only.
function createConsoleSessions ({ config, repository, now = Date.now }) {
  const idleMs = config.consoleSessionIdleS * 1000
  const maxMs = config.consoleSessionMaxS * 1000
  const touchEveryMs = Math.min(TOUCH_EVERY_MS, idleMs / 10)
  const touched = new BoundedMap(10000) // idHash -> when this worker last wrote its use

  // A new session for `person` ({ subject, name, scopes, store, idToken });
  // the cookie's value.
  async function begin (person) {
    const id = crypto.randomBytes(32).toString('base64url')
    const t = now()
    const data = JSON.stringify({ ...person, csrf: crypto.randomBytes(32).toString('base64url') })
    await repository.create({ idHash: hashOf(id), data, at: t, idleBefore: t - idleMs, createdBefore: t - maxMs })
    return id
  }

  // The live session of a cookie's value, or null (none, or its time is up).
  async function find (id) {
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(id)) return null
    const idHash = hashOf(id)
    const row = await repository.get(idHash)
    if (!row) return null
    const t = now()
    if (t - row.seenAt > idleMs || t - row.createdAt > maxMs) {
      await repository.remove(idHash)
      return null
    }
    let seenAt = row.seenAt
    if (t - (touched.get(idHash) ?? row.seenAt) >= touchEveryMs) {
      touched.set(idHash, t)
      await repository.touch(idHash, t)
      seenAt = Math.max(seenAt, t)
    }
    return { ...JSON.parse(row.data), expiresAt: Math.min(row.createdAt + maxMs, seenAt + idleMs) }
  }

  async function end (id) {
    if (typeof id === 'string' && id) await repository.remove(hashOf(id))
  }

  // The credential a request acts as by its cookie, null without one, or
  // 401 (a session gone) / 403 (no CSRF token, or another).
  async function credentialOf (req) {
    const id = cookieOf(req, COOKIE)
    if (id === undefined) return null
    const session = await find(id)
    if (!session) throw errors.Unauthorized('the console session has ended: sign in again')
    const sent = req.headers[CSRF_HEADER]
    if (!csrfMatches(session, sent)) throw errors.Forbidden('a request of a console session needs its CSRF token (X-CSRF-Token)')
    return {
      key: `${session.subject}@console`,
      scopes: session.scopes,
      store: session.store,
      authority: { objectType: 'Agent', name: session.name || session.subject, account: { homePage: config.consoleOidcIssuer, name: session.subject } },
      viaSession: true
    }
  }

  return { begin, find, end, credentialOf, csrfMatches, COOKIE }
}

function csrfMatches (session, sent) {
  return typeof sent === 'string' && sameText(sent, session.csrf)
}

function sameText (a, b) {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && crypto.timingSafeEqual(x, y)
}

// The value of cookie `name` in the request, or undefined (the first one
// if the client sent it twice).
function cookieOf (req, name) {
  const header = req.headers.cookie
  if (typeof header !== 'string') return undefined
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

module.exports = { createConsoleSessions, cookieOf, COOKIE }
