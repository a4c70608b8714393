'use strict'

// The OpenAPI 3.1 description of every route the LRS serves, served at
// GET /openapi.json, generated from the route table (src/http/route.js):
// each operation's path, method, scope, query parameters, request body and
// answers are those of the declaration the router serves, so they cannot
// drift from what is enforced. This file adds what is shared: the error
// answers (from the error catalogue), the schemas of the bodies, HEAD
// (Express answers it with the GET route) and the CORS preflight (cors.js
// answers OPTIONS on every /xapi path). Its paths are also the route labels
// of the request metrics (app.js); test/operations/openapi.test.js checks
// the document against the router and the running LRS.

const { errors } = require('../errors')
const { KNOWN_SCOPES, scopesAllowing } = require('../auth/scopes')
const { ref, schema, json, header, responseHeader, response, VERSION, UUID, DATE_TIME } = require('./openapi-parts')

const ANONYMOUS = [] // `security: []` overrides the document-wide Basic auth
const IRI = { type: 'string', format: 'iri' }

// The scopes that allow a kind of request, asked of scopes.js itself, so the
// descriptions say what the LRS enforces.
function scopesFor (need) {
  return `\n\nHTTP Basic or a bearer token; scopes allowed: ${scopesAllowing(need).map((s) => `\`${s}\``).join(', ')}.`
}

// ---- errors ----------------------------------------------------------------

// One shared response per status, all with the Error body; an operation
// names the catalogue codes it can answer with at that status.
const ERROR_RESPONSES = {
  400: ['BadRequest', 'The request is malformed: a parameter, header or body the LRS cannot accept (the message names it).'],
  401: ['Unauthorized', 'No valid HTTP Basic credentials or bearer token.', { 'WWW-Authenticate': responseHeader('`Basic realm="xAPI"` (`Bearer realm="xAPI"` with LRS_BASIC_AUTH=off); for a refused token `Bearer realm="xAPI", error="invalid_token", error_description="..."` (RFC 6750)') }],
  403: ['Forbidden', 'The credential\'s scopes do not allow this request.'],
  404: ['NotFound', 'No such statement, document or credential.'],
  409: ['Conflict', 'The request conflicts with what is stored (the code says how).'],
  412: ['PreconditionFailed', 'If-Match / If-None-Match did not hold.'],
  413: ['PayloadTooLarge', 'The body exceeds LRS_BODY_LIMIT (or a document LRS_MAX_DOCUMENT_BYTES).'],
  415: ['UnsupportedMediaType', 'The body is not of a type the operation takes (its Content-Type).'],
  429: ['TooManyRequests', 'The LRS is at capacity; retry after Retry-After seconds.', { 'Retry-After': ref('headers', 'RetryAfter') }],
  500: ['InternalError', 'An unexpected error; the details are in the log under the requestId.'],
  503: ['ServiceUnavailable', 'The database is unavailable; retry after Retry-After seconds.', { 'Retry-After': ref('headers', 'RetryAfter') }],
  507: ['StoreFull', 'The store\'s disk is full; writes resume once an operator frees space (retry after Retry-After seconds).', { 'Retry-After': ref('headers', 'RetryAfter') }],
  504: ['QueryTimeout', 'The query ran longer than LRS_QUERY_TIMEOUT_MS: narrow it or ask for a smaller limit.']
}

function errorComponents () {
  const out = {}
  for (const [name, description, headers = {}] of Object.values(ERROR_RESPONSES)) {
    out[name] = response(description, { content: json(schema('Error')), headers })
  }
  return out
}

const ERROR_CODES = Object.values(errors).map((e) => e.code)

// The catalogue entries a route can answer with: those it declares, its
// group's, and those that follow from the declaration itself. 500 and 503
// can answer any request that reaches code or database, 507 any that
// writes.
function errorsOf (route) {
  const out = new Set([...(route.group.errors || []), ...(route.errors || [])])
  if (route.scope) { out.add(errors.Unauthorized); out.add(errors.Forbidden) }
  if (route.query) out.add(errors.InvalidParameter)
  if (route.body) out.add(errors.PayloadTooLarge)
  if (route.body && route.body.kind !== 'raw' && route.body.kind !== 'form') out.add(errors.InvalidJson)
  if (route.body && (route.body.kind === 'json' || route.body.kind === 'form')) out.add(errors.BadRequest)
  if (out.size) { out.add(errors.Internal); out.add(errors.DatabaseUnavailable) }
  if (out.size && route.method !== 'get') out.add(errors.StoreFull)
  return [...out]
}

function errorResponses (route) {
  const codes = {}
  for (const e of errorsOf(route)) {
    if (!ERROR_RESPONSES[e.status]) throw new Error(`no shared response for status ${e.status} (${e.code})`)
    ;(codes[e.status] = codes[e.status] || []).push(e.code)
  }
  const out = {}
  for (const status of Object.keys(codes).sort()) {
    const [name, description] = ERROR_RESPONSES[status]
    out[status] = { ...ref('responses', name), description: `${description} Codes: ${codes[status].map((c) => `\`${c}\``).join(', ')}.` }
  }
  return out
}

// ---- operations --------------------------------------------------------------

// A declared query parameter: the schema ajv checks it with, and what the
// declaration adds for readers (a default the handler applies, examples).
function queryParameter (name, p) {
  const s = { ...p.schema }
  if (p.default !== undefined) s.default = p.default
  if (p.examples) s.examples = p.examples
  return { name, in: 'query', required: Boolean(p.required), description: p.description, schema: s }
}

function pathParameter (name, p) {
  return { name, in: 'path', required: true, description: p.description, schema: p.schema }
}

function requestBodyOf (route) {
  const body = route.body
  if (body.kind === 'json') return { required: true, content: json(schema(body.name)) }
  if (body.kind === 'form') return { required: true, content: { 'application/x-www-form-urlencoded': { schema: schema(body.name) } } }
  if (body.kind === 'parameters') {
    const properties = Object.fromEntries(Object.entries(route.query).map(([name, p]) => [name, p.schema]))
    return { required: false, description: body.description, content: json({ type: 'object', additionalProperties: false, properties }) }
  }
  const out = { required: body.required !== false, content: body.content }
  if (body.description) out.description = body.description
  return out
}

function operationOf (route) {
  const op = { tags: [route.tag], operationId: route.operationId, summary: route.summary }
  const description = (route.description || '') + (route.scope ? scopesFor(route.scope) : '')
  if (description) op.description = description
  if (route.scope) op['x-credential-scopes'] = scopesAllowing(route.scope)
  else op.security = ANONYMOUS
  const parameters = [
    ...(route.group.parameters || []),
    ...Object.entries(route.params || {}).map(([name, p]) => pathParameter(name, p)),
    ...Object.entries(route.query || {}).map(([name, p]) => queryParameter(name, p)),
    ...(route.parameters || [])
  ]
  if (parameters.length) op.parameters = parameters
  if (route.body) op.requestBody = requestBodyOf(route)
  op.responses = { ...route.responses, ...errorResponses(route) }
  return op
}

// Express answers HEAD with the GET route minus the body (Communication
// 1.1 requires HEAD wherever GET is), so HEAD is derived from GET.
function headOf (get) {
  const responses = {}
  for (const [status, r] of Object.entries(get.responses)) {
    responses[status] = r.$ref ? r : { description: r.description, headers: r.headers }
  }
  return { ...get, operationId: get.operationId.replace(/^get/, 'head'), summary: `${get.summary} (headers only)`, responses }
}

// The CORS middleware answers OPTIONS on every /xapi path before
// authentication (browsers send preflights without credentials).
function preflight (tag, operationId) {
  const h = (name) => responseHeader(`Sent when the Origin is allowed (LRS_CORS_ORIGINS): ${name}.`)
  return {
    tags: [tag],
    operationId,
    summary: 'CORS preflight',
    security: ANONYMOUS,
    parameters: [
      header('Origin', { type: 'string' }, 'The requesting origin; allowed origins are echoed, never `*`.'),
      header('Access-Control-Request-Method', { type: 'string' }, 'The method of the request to come.'),
      header('Access-Control-Request-Headers', { type: 'string' }, 'The headers of the request to come.')
    ],
    responses: {
      204: response('Always 204; the Access-Control-* headers only for an allowed origin.', {
        headers: {
          'Access-Control-Allow-Origin': h('the Origin'),
          'Access-Control-Allow-Credentials': h('`true`'),
          'Access-Control-Allow-Methods': h('GET, HEAD, PUT, POST, DELETE, OPTIONS'),
          'Access-Control-Allow-Headers': h('the xAPI request headers'),
          'Access-Control-Max-Age': h('86400')
        }
      })
    }
  }
}

const OPENAPI_PATH = (path) => path.replace(/:(\w+)/g, '{$1}')

// The paths of the document: one operation per declared route, HEAD beside
// each GET of a group with `head`, OPTIONS on each path of a group with `cors`.
function pathsOf (routes) {
  const paths = {}
  for (const route of routes) {
    const item = (paths[OPENAPI_PATH(route.path)] = paths[OPENAPI_PATH(route.path)] || {})
    if (item[route.method]) throw new Error(`${route.method} ${route.path} is declared twice`)
    item[route.method] = operationOf(route)
    if (route.method === 'get' && route.group.head) item.head = headOf(item.get)
  }
  for (const route of routes) {
    const item = paths[OPENAPI_PATH(route.path)]
    if (!route.group.cors || item.options) continue
    const get = item.get || item[route.method]
    item.options = preflight(get.tags[0], get.operationId.replace(/^[a-z]+/, 'options'))
  }
  // Operations in the usual order, whatever order the routes were declared in.
  const ORDER = ['get', 'head', 'put', 'post', 'delete', 'options']
  for (const [path, item] of Object.entries(paths)) {
    paths[path] = Object.fromEntries(ORDER.filter((m) => item[m]).map((m) => [m, item[m]]))
  }
  return paths
}

// Named JSON body schemas of the declarations (the very objects ajv checks).
function bodySchemas (routes) {
  const out = {}
  for (const { body } of routes) if (body && (body.kind === 'json' || body.kind === 'form')) out[body.name] = body.schema
  return out
}

// ---- schemas --------------------------------------------------------------------

const object = (properties, required = [], extra = {}) => ({ type: 'object', properties, ...(required.length ? { required } : {}), ...extra })
const SCOPES = { type: 'array', minItems: 1, uniqueItems: true, items: schema('Scope') }
const STORE_ID_FIELD = { type: 'string', description: 'The id of the store the credential belongs to (`default`: the store everything was in before stores).' }

function schemas () {
  const identifiers = { type: 'array', items: { type: 'string' } }
  return {
    Error: object({
      error: { description: '`true`; on POST /oauth/token, the RFC 6749 error (`invalid_client`, `invalid_scope`, `invalid_request`, `unsupported_grant_type`), with `error_description` beside it.', oneOf: [{ const: true }, { enum: ['invalid_client', 'invalid_scope', 'invalid_request', 'unsupported_grant_type'] }] },
      error_description: { type: 'string' },
      code: { type: 'string', description: `Stable, never reused: ${ERROR_CODES.join(', ')}.` },
      message: { type: 'string' },
      requestId: { type: 'string', description: 'Also the X-Request-Id header and the log\'s reqId.' }
    }, ['error', 'code', 'message', 'requestId']),
    Health: object({ status: { enum: ['up', 'down'] }, reason: { enum: ['shutting down', 'database unreachable', 'database not ready', 'store full'] } }, ['status']),
    About: object({ version: { type: 'array', items: { type: 'string' } }, extensions: { type: 'object' } }, ['version']),
    Agent: object({
      objectType: { enum: ['Agent', 'Group'] },
      name: { type: 'string' },
      mbox: { type: 'string' },
      mbox_sha1sum: { type: 'string' },
      openid: { type: 'string' },
      account: object({ homePage: { type: 'string' }, name: { type: 'string' } }, ['homePage', 'name']),
      member: { type: 'array', items: schema('Agent') }
    }, [], { description: 'An Agent or Group (xAPI Data 2.4.2), identified by exactly one of mbox, mbox_sha1sum, openid, account.' }),
    Statement: object({
      id: UUID,
      actor: schema('Agent'),
      verb: object({ id: IRI, display: { type: 'object' } }, ['id']),
      object: { type: 'object' },
      result: { type: 'object' },
      context: { type: 'object' },
      timestamp: DATE_TIME,
      stored: DATE_TIME,
      authority: schema('Agent'),
      version: { type: 'string' },
      attachments: { type: 'array', items: { type: 'object' } }
    }, ['actor', 'verb', 'object'], { description: 'An xAPI Statement (xAPI Data 2.4), validated in full by the LRS.' }),
    StatementResult: object({
      statements: { type: 'array', items: schema('Statement') },
      more: { type: 'string', description: 'URL path (from the server root) of the next page; empty on the last.' }
    }, ['statements', 'more']),
    Activity: object({ objectType: { const: 'Activity' }, id: IRI, definition: { type: 'object' } }, ['objectType', 'id'],
      { description: 'The Activity with its definition merged from the stored statements that carry it.' }),
    Person: object({ objectType: { const: 'Person' }, name: identifiers, mbox: identifiers, mbox_sha1sum: identifiers, openid: identifiers, account: { type: 'array', items: { type: 'object' } } }, ['objectType']),
    AlternateRequest: {
      type: 'object',
      description: 'xAPI 1.0.3 alternate request syntax: header fields (Authorization, X-Experience-API-Version, Content-Type, If-Match, If-None-Match), `content` (the body) and the query parameters.',
      properties: { content: { type: 'string' } },
      additionalProperties: { type: 'string' }
    },
    Scope: { enum: [...KNOWN_SCOPES], description: 'xAPI Communication 4.2 scopes, `admin` (this LRS\'s /admin API and /metrics for the credential\'s store, not included in `all`) and `stores/admin` (the stores, and the credentials of every store).' },
    Credential: object({
      key: { type: 'string' },
      store: STORE_ID_FIELD,
      scopes: SCOPES,
      createdAt: { type: ['string', 'null'], format: 'date-time' },
      lastUsedAt: { type: ['string', 'null'], format: 'date-time', description: 'When a request last authenticated with it, to within a minute; null: never (or not since this LRS began keeping it).' },
      bootstrap: { type: 'boolean', description: 'The credential of LRS_ADMIN_USER, managed by the configuration.' }
    }, ['key', 'store', 'scopes', 'createdAt', 'lastUsedAt', 'bootstrap']),
    CredentialList: object({ credentials: { type: 'array', items: schema('Credential') } }, ['credentials']),
    NewCredential: object({ key: { type: 'string' }, store: STORE_ID_FIELD, secret: { type: 'string' }, scopes: SCOPES, createdAt: DATE_TIME }, ['key', 'store', 'secret', 'scopes', 'createdAt']),
    Store: object({
      id: { type: 'string', description: 'How the API names the store.' },
      name: { type: 'string' },
      createdAt: { type: ['string', 'null'], format: 'date-time' },
      retentionDays: { type: ['integer', 'null'], description: 'Its statements are kept this many days after they were stored; null: for good.' },
      forwardTo: { type: 'array', items: { type: 'string' }, description: 'The upstream LRSs its statements are forwarded to (its own, besides LRS_FORWARD_URLS), without their credentials.' },
      statements: { type: 'integer', minimum: 0, description: 'Statements stored in it, voided ones included.' },
      documents: { type: 'integer', minimum: 0, description: 'State, Activity Profile and Agent Profile documents.' },
      documentBytes: { type: 'integer', minimum: 0, description: 'Their contents\' bytes (on MongoDB, of documents written since version 12 of this LRS).' },
      attachments: { type: 'integer', minimum: 0, description: 'Attachment contents (each stored once, however many statements use it).' },
      attachmentBytes: { type: 'integer', minimum: 0 },
      credentials: { type: 'integer', minimum: 0, description: 'Credentials that belong to it.' }
    }, ['id', 'name', 'createdAt', 'retentionDays', 'forwardTo', 'statements', 'documents', 'documentBytes', 'attachments', 'attachmentBytes', 'credentials']),
    StatementDeletion: object({
      range: object({ since: { type: ['string', 'null'], format: 'date-time' }, until: DATE_TIME }, ['since', 'until']),
      removed: object(Object.fromEntries(['statements', 'attachments', 'forwardingEntries'].map((k) => [k, { type: 'integer', minimum: 0 }])), ['statements', 'attachments', 'forwardingEntries'])
    }, ['range', 'removed']),
    StatementImport: object({
      stored: { type: 'integer', minimum: 0, description: 'Statements stored by this import.' },
      existing: { type: 'integer', minimum: 0, description: 'Statements the store held already (the same statement: left as it was).' },
      rejected: { type: 'integer', minimum: 0, description: 'Lines not stored: not a valid statement, no id, an id given twice, or a different statement under an id the store holds.' },
      rejects: { type: 'array', maxItems: 100, description: 'The first 100 of them: the line (from 1) and why.', items: object({ line: { type: 'integer', minimum: 1 }, reason: { type: 'string' } }, ['line', 'reason']) }
    }, ['stored', 'existing', 'rejected', 'rejects']),
    StatementDeletionPreview: object({
      range: object({ since: { type: ['string', 'null'], format: 'date-time' }, until: DATE_TIME }, ['since', 'until']),
      wouldRemove: object({
        statements: { type: 'integer', minimum: 0, description: 'Those in the range and those that go with them.' },
        outsideTheRange: { type: 'integer', minimum: 0, description: 'Of those, the ones stored outside the range: voiding statements of voided ones in it, targets of voiding ones in it.' }
      }, ['statements', 'outsideTheRange'])
    }, ['range', 'wouldRemove']),
    DeletingStore: object({
      id: { type: 'string', description: 'The id it had (free for a new store at once).' },
      name: { type: 'string' },
      deletedAt: DATE_TIME,
      statementsLeft: { type: 'integer', minimum: 0, description: 'Statements not purged yet.' }
    }, ['id', 'name', 'deletedAt', 'statementsLeft']),
    StoreList: object({
      stores: { type: 'array', items: schema('Store') },
      deleting: { type: 'array', items: schema('DeletingStore'), description: 'Deleted stores whose data is still being purged.' }
    }, ['stores', 'deleting']),
    StoreDeletion: object({
      deleted: schema('Store'),
      purge: { type: 'string', enum: ['started'], description: 'The data is purged in the background; GET /admin/stores lists the store under `deleting` until it is gone.' }
    }, ['deleted', 'purge']),
    CredentialScopesResult: object({ key: { type: 'string' }, scopes: SCOPES }, ['key', 'scopes']),
    ErasureResult: object({
      agentDigest: { type: 'string', description: 'The agent\'s name in the audit log.' },
      removed: object(Object.fromEntries(['statements', 'attachments', 'forwardingEntries', 'stateDocuments', 'agentProfileDocuments'].map((k) => [k, { type: 'integer', minimum: 0 }])),
        ['statements', 'attachments', 'forwardingEntries', 'stateDocuments', 'agentProfileDocuments'])
    }, ['agentDigest', 'removed']),
    ErasurePreview: object({
      agentDigest: { type: 'string', description: 'The agent\'s name in the audit log.' },
      wouldRemove: object(Object.fromEntries(['statements', 'stateDocuments', 'agentProfileDocuments'].map((k) => [k, { type: 'integer', minimum: 0 }])),
        ['statements', 'stateDocuments', 'agentProfileDocuments'])
    }, ['agentDigest', 'wouldRemove']),
    DeadLetter: object({
      id: { type: 'string' },
      upstream: { type: 'string' },
      forwards: { type: 'string', enum: ['this store', 'every store'], description: 'Whose statements it gets: the store\'s own upstream, or one of LRS_FORWARD_URLS (every store\'s statements).' },
      statementId: { type: 'string', description: 'The statement\'s id; for an LRS-wide upstream, a statement of another store than the default one is named `s<n>|<id>`.' },
      enqueuedAt: DATE_TIME,
      status: { type: 'integer', description: 'The HTTP status the upstream answered.' },
      reason: { type: 'string', description: 'The start of the upstream\'s answer.' },
      failedAt: DATE_TIME
    }, ['id', 'upstream', 'forwards', 'statementId', 'enqueuedAt', 'status', 'reason', 'failedAt']),
    DeadLetterList: object({ deadLetters: { type: 'array', items: schema('DeadLetter') } }, ['deadLetters']),
    ReplayResult: object({ replayed: { type: 'integer', minimum: 0 } }, ['replayed']),
    DiscardResult: object({ discarded: { type: 'integer', minimum: 0 } }, ['discarded']),
    Overview: object({
      since: DATE_TIME,
      until: DATE_TIME,
      total: { type: 'integer', minimum: 0, description: 'Statements stored, all of them.' },
      hours: { type: 'array', items: object({ start: DATE_TIME, count: { type: 'integer', minimum: 0 } }, ['start', 'count']) },
      verbs: {
        type: 'array',
        items: object({
          verb: { type: 'string' },
          count: { type: 'integer', minimum: 0 },
          display: { type: ['object', 'null'], additionalProperties: { type: 'string' }, description: 'The verb\'s display (a language map) in the newest statement, not voided, that has it; null when that statement has none or every one is voided. As its sender wrote it: show it as text.' }
        }, ['verb', 'count', 'display'])
      },
      activities: { type: 'array', items: object({ activity: { type: 'string' }, count: { type: 'integer', minimum: 0 } }, ['activity', 'count']) },
      credentials: { type: 'array', items: object({ key: { type: ['string', 'null'] }, count: { type: 'integer', minimum: 0 } }, ['key', 'count']) }
    }, ['since', 'until', 'total', 'hours', 'verbs', 'activities', 'credentials']),
    SavedReport: object({
      id: { type: 'string' },
      name: { type: 'string' },
      report: { type: 'object', description: 'The report, as POST /admin/reports/run takes it.' },
      revision: { type: 'integer', description: 'Moves on every change; the ETag is "r<revision>".' },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' }
    }, ['id', 'name', 'report', 'revision', 'createdAt', 'updatedAt']),
    ReportAnswer: object({
      columns: { type: 'array', items: { type: 'string' }, description: 'The groups\' dimensions, then the measures (or the shape\'s columns).' },
      rows: { type: 'array', items: { type: 'array', items: { type: ['string', 'number', 'boolean', 'null'] } }, description: 'One per group, in columns\' order: along the time bucket when there is one, else largest first measure first.' },
      groups: { type: 'integer', minimum: 0, description: 'Groups found (rows holds at most maxGroups of them).' },
      truncated: { type: 'boolean', description: 'true: more groups than rows holds (or than a report may keep while it runs): narrow it, or ask for more with maxGroups.' },
      statementsRead: { type: 'integer', minimum: 0, description: 'Statements the store\'s query gave (GET /statements\' filters, voided ones left out).' },
      statementsCounted: { type: 'integer', minimum: 0, description: 'Those that passed the rest of the filter and were counted.' },
      source: { enum: ['statements', 'rollups', 'aggregation'], description: 'statements: counted from the statements read; rollups (SQLite) and aggregation (MongoDB): from counts per hour of timestamp, verb, activity and learner, which the store keeps or its database aggregates (statementsRead 0): the same numbers, for reports that ask only those (docs/reports.md).' },
      tookMs: { type: 'integer', minimum: 0 }
    }, ['columns', 'rows', 'groups', 'truncated', 'statementsRead', 'statementsCounted', 'source', 'tookMs']),
    Forwarder: object({
      id: { type: 'string' },
      store: { type: ['string', 'null'], description: 'Its store\'s id.' },
      name: { type: 'string' },
      state: { enum: ['active', 'paused'] },
      target: { type: 'object', description: 'As made, without secrets: an LRS target\'s auth shows its type (and username); a webhook\'s `secrets`, how many it has.' },
      filter: { type: 'object' },
      batchSize: { type: 'integer' },
      retry: { type: 'object' },
      revision: { type: 'integer', description: 'Moves on every change; the ETag is "r<revision>".' },
      createdAt: { type: 'string', format: 'date-time' },
      updatedAt: { type: 'string', format: 'date-time' },
      delivery: object({
        status: { enum: ['healthy', 'retrying', 'failing', 'paused'], description: 'healthy: nothing failed since the last delivery; retrying: deliveries have failed for less than a minute; failing: longer (see failingSince and lastError). From every worker and host.' },
        failingSince: { type: ['string', 'null'], format: 'date-time', description: 'When the failures going on began (null when healthy).' },
        lastError: { type: ['string', 'null'], description: 'The last failure: the target\'s status or the network\'s error code, never its URL.' },
        circuit: { enum: ['open', 'closed'], description: 'open: the target has failed for retry.maxBackoffMs without a delivery; all workers and hosts together try it once per maxBackoffMs until one gets through.' },
        lastErrorAt: { type: ['string', 'null'], format: 'date-time' },
        lastDeliveredAt: { type: ['string', 'null'], format: 'date-time', description: 'Noted every few seconds while deliveries go on.' },
        delivered: { type: 'integer', minimum: 0, description: 'Statements delivered since the forwarder was made.' },
        queued: { type: 'integer', minimum: 0, description: 'Statements waiting.' },
        oldestQueuedAt: { type: ['string', 'null'], format: 'date-time' },
        lagSeconds: { type: 'integer', minimum: 0, description: 'How long the oldest waiting statement has waited.' },
        deadLetters: { type: 'integer', minimum: 0 }
      }),
      secrets: { type: 'array', items: { type: 'string' }, description: 'Only in the answer to the creation of a webhook made without secrets: the signing secret made for it, shown this once.' }
    }, ['id', 'name', 'state', 'target', 'filter', 'batchSize', 'retry', 'revision', 'delivery']),
    ForwarderList: object({
      forwarders: { type: 'array', items: schema('Forwarder') },
      configured: { type: 'array', items: object({ upstream: { type: 'string' }, managedBy: { enum: ['LRS_FORWARD_URLS', 'forwardUrls'] }, forwards: { enum: ['this store', 'every store'] } }) }
    }, ['forwarders', 'configured']),
    UpstreamList: object({
      upstreams: {
        type: 'array',
        items: object({
          id: { type: 'string', description: 'The upstream, as named in the metrics and dead letters (no credentials).' },
          forwards: { type: 'string', enum: ['this store', 'every store'], description: 'Whose statements it gets: the store\'s own upstream, or one of LRS_FORWARD_URLS (every store\'s statements).' },
          queued: { type: 'integer', minimum: 0, description: 'Statements waiting in its outbox.' },
          oldestEnqueuedAt: { ...DATE_TIME, type: ['string', 'null'] },
          deadLetters: { type: 'integer', minimum: 0 }
        }, ['id', 'forwards', 'queued', 'oldestEnqueuedAt', 'deadLetters'])
      }
    }, ['upstreams'])
  }
}

// ---- the document ----------------------------------------------------------------

// `routes`: the route table (route.js), every route the app serves.
function openapiDocument ({ version, routes }) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'xAPI Learning Record Store',
      version,
      description: 'An xAPI 1.0.3 and 2.0 LRS. xAPI requests send X-Experience-API-Version (1.0.x or 2.0.x) and are answered by that version, echoed in the response header. ' +
        'Every error is JSON (components.schemas.Error) with a stable code; xAPI resources other than /xapi/about need HTTP Basic credentials or a bearer token (POST /oauth/token, or an OpenID Connect issuer) whose scopes allow the request ' +
        '(`x-credential-scopes` on each operation lists them). ' +
        'Under 1.0.3 every xAPI resource also takes the alternate request syntax (POST ?method=…, see POST /xapi/statements); ' +
        'OPTIONS answers CORS preflights on every /xapi path (LRS_CORS_ORIGINS).',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' }
    },
    servers: [{ url: '/' }],
    security: [{ basicAuth: [] }, { bearerAuth: [] }, { consoleSession: [] }],
    tags: [
      { name: 'xAPI Statements', description: 'Communication 2.1' },
      { name: 'xAPI Documents', description: 'State, Activity Profile and Agent Profile (Communication 2.3, 2.6, 2.7), with ETag concurrency control.' },
      { name: 'xAPI Agents and Activities', description: 'Communication 2.4, 2.5' },
      { name: 'About', description: 'Communication 2.8' },
      { name: 'Admin', description: 'The operators\' API; scope `admin` only.' },
      { name: 'Reports', description: 'Figures of the store\'s statements: scope `reports` (figures, not statements), `admin`, or one that reads statements (only its own with statements/read/mine).' },
      { name: 'Operations', description: 'Health checks, metrics and this document.' }
    ],
    paths: pathsOf(routes),
    components: {
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'A credential\'s key and secret (created with `npm run credential` or POST /admin/credentials).' },
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An access token of POST /oauth/token (a credential\'s, with some of its scopes) or of an OpenID Connect issuer named in LRS_OIDC_ISSUERS.' },
        consoleSession: { type: 'apiKey', in: 'cookie', name: '__Host-lrs-console', description: 'The console\'s single sign-on session (LRS_CONSOLE_OIDC_ISSUER; GET /console/sso/start), for requests without an Authorization header; each needs the session\'s CSRF token (GET /console/sso) in X-CSRF-Token, or gets 403.' }
      },
      parameters: { XapiVersion: header('X-Experience-API-Version', VERSION, 'The xAPI version of the request; missing or unsupported is 400 LRS_ERR_VERSION_HEADER.', true) },
      headers: {
        XapiVersion: responseHeader('The xAPI version the request was answered as (1.0.3 or 2.0.0).'),
        RequestId: responseHeader('This request\'s id, as in the log and in error bodies.'),
        ConsistentThrough: responseHeader('Statements stored up to this instant are all visible to queries (on every statements response, errors included).', DATE_TIME),
        LastModified: responseHeader('HTTP date: when the statement was stored, or the newest of those returned / the document last changed.'),
        ETag: responseHeader('Strong ETag of a single document: the quoted SHA-1 hex of its content.'),
        RetryAfter: responseHeader('Seconds.', { type: 'integer' })
      },
      responses: errorComponents(),
      schemas: { ...schemas(), ...bodySchemas(routes) }
    }
  }
}

module.exports = { openapiDocument }
