'use strict'

// A forwarder: where a store's statements go, as data (/admin/forwarders),
// made and changed by the store's own admin without a restart. Its target
// is another LRS (POST /statements with Basic, a bearer token, OAuth 2.0
// client credentials (oauth-token.js) or none) or
// a webhook (a JSON POST signed as Standard Webhooks says); its filter
// picks statements as GET /statements would (forwarder-filter.js); its
// batch size and retry policy shape delivery (forwarder.js). Secrets are
// kept sealed (src/auth/sealed-secrets.js) and never shown back.
//
// Stored definition: { name, paused, target: { kind, url, xapiVersion,
// auth: { type, username, password|token (sealed) | tokenUrl, clientId,
// clientSecret (sealed), scope }, secrets: [sealed] },
// filter, batchSize, retry: { initialBackoffMs, maxBackoffMs, giveUpAfterS } }.

const crypto = require('node:crypto')
const { errors } = require('../errors')
const { FILTER_SCHEMA, compileFilter } = require('./forwarder-filter')
const { upstreamProblem } = require('./upstreams')
const { newWebhookSecret, webhookSecretProblem } = require('./webhook-signature')

const MAX_PER_STORE = 20
const DEFAULT_BATCH = 100
const DEFAULT_RETRY = { initialBackoffMs: 500, maxBackoffMs: 60000, giveUpAfterS: 0 }

const URL_SCHEMA = { type: 'string', minLength: 1, maxLength: 2000 }
const TARGET_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['kind', 'url'],
  properties: {
    kind: { enum: ['lrs', 'webhook'], description: '`lrs`: another LRS, sent POST {url}/statements; `webhook`: a JSON POST to url, signed (Standard Webhooks).' },
    url: { ...URL_SCHEMA, description: 'http or https, no credentials, query or fragment. An LRS\'s xAPI endpoint (https://lrs.example.com/xapi), or the webhook receiver\'s address.' },
    auth: {
      type: 'object',
      additionalProperties: false,
      required: ['type'],
      description: 'An LRS target\'s credentials: `none`, `basic` (username, password), `bearer` (token), or `oauth2` (OAuth 2.0 client credentials: tokenUrl, clientId, clientSecret, scope; the LRS fetches a token, keeps it until shortly before it expires and fetches another, and again after a 401). The secret may be left out of a change to keep the one set. Never shown back.',
      properties: {
        type: { enum: ['none', 'basic', 'bearer', 'oauth2'] },
        username: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^:]*$' },
        password: { type: 'string', minLength: 1, maxLength: 2000 },
        token: { type: 'string', minLength: 1, maxLength: 8000 },
        tokenUrl: { ...URL_SCHEMA, description: 'oauth2: the token endpoint (http or https), asked with grant_type=client_credentials and the client\'s id and secret as HTTP Basic (RFC 6749, 4.4).' },
        clientId: { type: 'string', minLength: 1, maxLength: 200, pattern: '^[^:]*$' },
        clientSecret: { type: 'string', minLength: 1, maxLength: 2000 },
        scope: { type: 'string', minLength: 1, maxLength: 1000, pattern: '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+( [\\x21\\x23-\\x5B\\x5D-\\x7E]+)*$' }
      }
    },
    xapiVersion: { enum: ['as stored', '1.0.3', '2.0.0'], description: 'An LRS target: the X-Experience-API-Version sent (`as stored`: each statement\'s own, batches split by it). Default `as stored`.' },
    secrets: {
      type: 'array',
      minItems: 1,
      maxItems: 2,
      items: { type: 'string', maxLength: 200 },
      description: 'A webhook\'s signing secrets (whsec_ + base64 of 24 to 64 bytes): each delivery is signed with each, so a receiver holding either verifies it while one is rotated. Made when a webhook is created without one (shown once, in the answer to the creation); left out of a change, kept. Never shown back.'
    }
  }
}

const RETRY_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description: 'A failed delivery (no answer, 408, 429, 5xx) is tried again after a backoff doubling from initialBackoffMs to maxBackoffMs, with jitter, or after the target\'s Retry-After when later. Once a target has failed for maxBackoffMs without a delivery its circuit opens: all workers and hosts together try it once per maxBackoffMs until one gets through. giveUpAfterS (0: never): statements queued longer than that when a delivery fails become dead letters.',
  properties: {
    initialBackoffMs: { type: 'integer', minimum: 100, maximum: 60000 },
    maxBackoffMs: { type: 'integer', minimum: 1000, maximum: 3600000 },
    giveUpAfterS: { type: 'integer', minimum: 0, maximum: 30 * 86400 }
  }
}

const FORWARDER_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'target'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'What people see.' },
    target: TARGET_SCHEMA,
    filter: FILTER_SCHEMA,
    batchSize: { type: 'integer', minimum: 1, maximum: 500, description: `Statements per delivery (default ${DEFAULT_BATCH}).` },
    retry: RETRY_SCHEMA,
    paused: { type: 'boolean', description: 'true: nothing is delivered (statements are still queued, and go once resumed).' }
  }
}

const upstreamIdOf = (store, id) => `s${store}|fw:${id}`
const newForwarderId = () => crypto.randomUUID()

// The stored definition of `body` (checked by FORWARDER_BODY), its
// secrets sealed; `previous`: the definition it replaces, whose secrets a
// body without them keeps. Returns { definition, shownSecrets } (secrets
// made here, shown once). Throws 400/409 for what the schema cannot say.
async function toDefinition (body, { previous = null, sealed, hosts, validator }) {
  const { target } = body
  const problem = upstreamProblem(target.url)
  if (problem) throw errors.BadRequest(`target.url ${problem}`)
  if (new URL(target.url).username) throw errors.BadRequest('target.url must carry no credentials: give them in target.auth')
  const forbidden = await hosts.problem(target.url)
  if (forbidden) throw errors.BadRequest(`target.url: ${forbidden}`)
  const before = previous && previous.target.kind === target.kind ? previous.target : null
  const out = { kind: target.kind, url: target.url.replace(/\/+$/, '') }
  let shownSecrets = null
  const seal = (value) => {
    if (!sealed.available) throw errors.SecretsKeyMissing()
    return sealed.seal(value)
  }
  if (target.kind === 'lrs') {
    if (target.secrets) throw errors.BadRequest('target.secrets is for webhooks; an LRS target takes target.auth')
    out.xapiVersion = target.xapiVersion || 'as stored'
    const auth = target.auth || { type: 'none' }
    const kept = before && before.auth.type === auth.type ? before.auth : null
    if (auth.type === 'basic') {
      if (!auth.username) throw errors.BadRequest('target.auth of type basic needs username')
      if (auth.token || auth.tokenUrl || auth.clientId || auth.clientSecret || auth.scope) throw errors.BadRequest('target.auth of type basic takes username and password only')
      if (!auth.password && !kept) throw errors.BadRequest('target.auth of type basic needs password')
      out.auth = { type: 'basic', username: auth.username, password: auth.password ? seal(auth.password) : kept.password }
    } else if (auth.type === 'oauth2') {
      if (auth.username || auth.password || auth.token) throw errors.BadRequest('target.auth of type oauth2 takes tokenUrl, clientId, clientSecret and scope')
      if (!auth.tokenUrl || !auth.clientId) throw errors.BadRequest('target.auth of type oauth2 needs tokenUrl and clientId')
      if (!auth.clientSecret && !kept) throw errors.BadRequest('target.auth of type oauth2 needs clientSecret')
      const bad = upstreamProblem(auth.tokenUrl)
      if (bad) throw errors.BadRequest(`target.auth.tokenUrl ${bad}`)
      if (new URL(auth.tokenUrl).username) throw errors.BadRequest('target.auth.tokenUrl must carry no credentials: give them as clientId and clientSecret')
      const forbiddenToken = await hosts.problem(auth.tokenUrl)
      if (forbiddenToken) throw errors.BadRequest(`target.auth.tokenUrl: ${forbiddenToken}`)
      out.auth = { type: 'oauth2', tokenUrl: auth.tokenUrl, clientId: auth.clientId, clientSecret: auth.clientSecret ? seal(auth.clientSecret) : kept.clientSecret, ...(auth.scope && { scope: auth.scope }) }
    } else if (auth.type === 'bearer') {
      if (auth.username || auth.password || auth.tokenUrl || auth.clientId || auth.clientSecret || auth.scope) throw errors.BadRequest('target.auth of type bearer takes token only')
      if (!auth.token && !kept) throw errors.BadRequest('target.auth of type bearer needs token')
      out.auth = { type: 'bearer', token: auth.token ? seal(auth.token) : kept.token }
    } else {
      if (auth.username || auth.password || auth.token || auth.tokenUrl || auth.clientId || auth.clientSecret || auth.scope) throw errors.BadRequest('target.auth of type none takes no credentials')
      out.auth = { type: 'none' }
    }
  } else {
    if (target.auth || target.xapiVersion) throw errors.BadRequest('a webhook target takes secrets, not auth or xapiVersion')
    if (target.secrets) {
      for (const [i, s] of target.secrets.entries()) {
        const bad = webhookSecretProblem(s)
        if (bad) throw errors.BadRequest(`target.secrets[${i}] ${bad}`)
      }
      out.secrets = target.secrets.map(seal)
    } else if (before) {
      out.secrets = before.secrets
    } else {
      shownSecrets = [newWebhookSecret()]
      out.secrets = shownSecrets.map(seal)
    }
  }
  const filter = { ...(body.filter || {}) }
  if (filter.agent) filter.agent = validator.parseActorParam(JSON.stringify(filter.agent), '2.0.0', 'filter.agent')
  for (const field of ['verb', 'activity']) if (filter[field] && !validator.isIri(filter[field])) throw errors.BadRequest(`filter.${field} must be an IRI`)
  if (filter.related_agents && !filter.agent) throw errors.BadRequest('filter.related_agents widens filter.agent, which is missing')
  if (filter.related_activities && !filter.activity) throw errors.BadRequest('filter.related_activities widens filter.activity, which is missing')
  const retry = { ...DEFAULT_RETRY, ...(body.retry || {}) }
  if (retry.initialBackoffMs > retry.maxBackoffMs) throw errors.BadRequest('retry.initialBackoffMs must not exceed retry.maxBackoffMs')
  return {
    definition: { name: body.name, paused: body.paused === true, target: out, filter, batchSize: body.batchSize || DEFAULT_BATCH, retry },
    shownSecrets
  }
}

// A target's auth as shown: who, never the secret.
function shownAuth (auth) {
  if (auth.type === 'basic') return { type: 'basic', username: auth.username }
  if (auth.type === 'oauth2') return { type: 'oauth2', tokenUrl: auth.tokenUrl, clientId: auth.clientId, ...(auth.scope && { scope: auth.scope }) }
  return { type: auth.type }
}

// What the API shows of a forwarder: never a secret.
function publicView (forwarder, { storeId }) {
  const d = forwarder.definition
  const t = d.target
  const target = t.kind === 'lrs'
    ? { kind: 'lrs', url: t.url, xapiVersion: t.xapiVersion, auth: shownAuth(t.auth) }
    : { kind: 'webhook', url: t.url, secrets: t.secrets.length }
  return {
    id: forwarder.id,
    store: storeId,
    name: d.name,
    state: d.paused ? 'paused' : 'active',
    target,
    filter: d.filter,
    batchSize: d.batchSize,
    retry: d.retry,
    revision: forwarder.revision,
    createdAt: forwarder.createdAt.toISOString(),
    updatedAt: forwarder.updatedAt.toISOString()
  }
}

// The upstream the forwarder (forwarder.js) delivers to; `sealed` opens
// its secrets (a secret that cannot be opened: `problem`, nothing sent).
function toUpstream (forwarder, sealed) {
  const d = forwarder.definition
  const t = d.target
  const upstream = {
    id: upstreamIdOf(forwarder.store, forwarder.id),
    name: d.name,
    forwarderId: forwarder.id,
    store: forwarder.store,
    kind: t.kind,
    endpoint: t.kind === 'lrs' ? t.url + '/statements' : t.url,
    shown: t.url,
    xapiVersion: t.xapiVersion || null,
    auth: null,
    oauth: null,
    secrets: null,
    batchSize: d.batchSize,
    retry: d.retry,
    paused: d.paused,
    checkHost: true,
    fingerprint: `fw ${forwarder.revision}`,
    problem: null
  }
  try {
    if (t.kind === 'webhook') upstream.secrets = t.secrets.map((s) => sealed.open(s))
    else if (t.auth.type === 'basic') upstream.auth = 'Basic ' + Buffer.from(`${t.auth.username}:${sealed.open(t.auth.password)}`).toString('base64')
    else if (t.auth.type === 'bearer') upstream.auth = 'Bearer ' + sealed.open(t.auth.token)
    else if (t.auth.type === 'oauth2') upstream.oauth = { tokenUrl: t.auth.tokenUrl, clientId: t.auth.clientId, clientSecret: sealed.open(t.auth.clientSecret), scope: t.auth.scope || null }
  } catch (err) {
    upstream.problem = `its secret cannot be opened: ${err.message}`
  }
  return upstream
}

module.exports = { FORWARDER_BODY, MAX_PER_STORE, toDefinition, publicView, toUpstream, upstreamIdOf, newForwarderId, compileFilter }
