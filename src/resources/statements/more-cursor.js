'use strict'

// The `more` IRL (Communication 2.1.3): a relative URL carrying the query,
// the (stored, id) position of the last statement served, and the
// Consistent-Through of the first page, so the next page continues exactly
// there however many statements arrive meanwhile. No skip: cost does not
// grow with the page number.
//
// Tokens are encrypted and authenticated (AES-256-GCM) with a key every
// worker shares (derived from LRS_CURSOR_KEY, or from a key created once
// and kept in the database), so they stay valid across workers and
// restarts, an altered or forged token is refused before anything in it is
// used, and nothing of the query can be read from it: signed only, the
// token was base64 JSON, and learners' e-mail addresses in `agent` filters
// ended up readable in URLs and proxy logs. Its content is checked against
// a schema all the same, and the page size is capped again.

const crypto = require('node:crypto')
const Ajv = require('ajv')
const { errors } = require('../../errors')

const VERSION = 2
const IV_BYTES = 12
const TAG_BYTES = 16
const string = { type: 'string', maxLength: 8192 }
const optionalString = { anyOf: [string, { type: 'null' }] }
const instant = { anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }] }
const PAYLOAD = {
  type: 'object',
  additionalProperties: false,
  required: ['v', 'q', 'c', 'f', 'a', 't'],
  properties: {
    v: { const: VERSION },
    q: {
      type: 'object',
      additionalProperties: false,
      required: ['agent', 'verb', 'activity', 'registration', 'relatedAgents', 'relatedActivities', 'since', 'until', 'ascending', 'limit'],
      properties: {
        agent: optionalString,
        verb: optionalString,
        activity: optionalString,
        registration: optionalString,
        relatedAgents: { type: 'boolean' },
        relatedActivities: { type: 'boolean' },
        since: instant,
        until: instant,
        ascending: { type: 'boolean' },
        limit: { type: 'integer', minimum: 1 }
      }
    },
    c: {
      type: 'object',
      additionalProperties: false,
      required: ['s', 'p'],
      properties: { s: { type: 'integer', minimum: 0 }, p: string }
    },
    f: { enum: ['exact', 'ids', 'canonical'] },
    a: { type: 'boolean' },
    t: { type: 'integer', minimum: 0 },
    // the store (its number) the walk is in; absent in tokens made before
    // stores were written in them: the default store's
    st: { type: 'integer', minimum: 0 }
  }
}
const ajv = new Ajv({ strict: true })
require('ajv-formats')(ajv, ['date-time'])
const validPayload = ajv.compile(PAYLOAD)

const iso = (date) => (date ? date.toISOString() : null)
const dateOf = (text) => (text === null ? null : new Date(text))

// The query as the token carries it: every field, in a fixed order, so two
// descriptions of the same query serialise the same.
function portable (query) {
  return {
    agent: query.agent || null,
    verb: query.verb || null,
    activity: query.activity || null,
    registration: query.registration || null,
    relatedAgents: query.relatedAgents,
    relatedActivities: query.relatedActivities,
    since: iso(query.since),
    until: iso(query.until),
    ascending: query.ascending,
    limit: query.limit
  }
}

// `loadKey`: resolves to the shared key (read once, then kept).
function createMoreCursor (loadKey) {
  let key = null
  async function ready () {
    if (!key) key = Buffer.from(crypto.hkdfSync('sha256', await loadKey(), Buffer.alloc(0), 'xapi-lrs more token', 32))
  }

  function seal (plain) {
    const iv = crypto.randomBytes(IV_BYTES)
    const cipher = crypto.createCipheriv('aes-256-gcm', key, iv)
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()])
    return sealed.toString('base64url')
  }

  // The plain bytes, or null for anything not sealed with the key.
  function open (token) {
    const sealed = Buffer.from(token, 'base64url')
    // one spelling only: decoding is lenient (stray characters, the last
    // character's unused bits), and another spelling of a valid token
    // would be a valid token too
    if (sealed.length < IV_BYTES + TAG_BYTES + 1 || sealed.toString('base64url') !== token) return null
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES))
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES))
    try {
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()])
    } catch {
      return null
    }
  }

  async function encode (basePath, { query, next, format, attachments, consistentThrough, store = 0 }) {
    await ready()
    const payload = { v: VERSION, q: portable(query), c: { s: next.stored.getTime(), p: next.position }, f: format, a: attachments, t: consistentThrough.getTime(), st: store }
    return `${basePath}?more=${seal(Buffer.from(JSON.stringify(payload)))}`
  }

  // `store`: the store of the request; a token made in another is refused
  // like a forged one (it would only walk this store with that query, but
  // a token is one walk, in one store).
  async function decode (token, { maxLimit, store = 0 }) {
    await ready()
    const invalid = () => errors.InvalidParameter('more is not a valid continuation token (use the more URL exactly as it was returned)')
    const plain = typeof token === 'string' && token.length <= 16384 ? open(token) : null
    if (!plain) throw invalid()
    let p
    try { p = JSON.parse(plain.toString('utf8')) } catch { throw invalid() }
    if (!validPayload(p) || (p.st || 0) !== store) throw invalid()
    const query = { ...p.q, since: dateOf(p.q.since), until: dateOf(p.q.until), limit: Math.min(p.q.limit, maxLimit) }
    return { query, after: { stored: new Date(p.c.s), position: p.c.p }, format: p.f, attachments: p.a, consistentThrough: new Date(p.t) }
  }

  // A position alone (the live feed's event ids, src/feed/): { stored,
  // position } sealed with the store, so a forged or altered one is refused
  // before its position reaches a query.
  async function encodePosition ({ stored, position }, { store = 0 }) {
    await ready()
    return seal(Buffer.from(JSON.stringify({ s: stored.getTime(), p: position, st: store })))
  }
  async function decodePosition (token, { store = 0 }) {
    await ready()
    const plain = typeof token === 'string' && token.length <= 1024 ? open(token) : null
    let p = null
    try { p = plain && JSON.parse(plain.toString('utf8')) } catch {}
    if (!p || !Number.isSafeInteger(p.s) || p.s < 0 || typeof p.p !== 'string' || p.p.length > 8192 || p.st !== store) return null
    return { stored: new Date(p.s), position: p.p }
  }

  // Some client libraries send the original parameters again beside `more`:
  // the same query is served, a different one is not.
  function sameRequest (a, b) {
    return JSON.stringify(portable(a.query)) === JSON.stringify(portable(b.query)) && a.format === b.format && a.attachments === b.attachments
  }

  return { encode, decode, sameRequest, encodePosition, decodePosition }
}

module.exports = { createMoreCursor }
