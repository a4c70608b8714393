'use strict'

// The OpenAPI 3.1 description of every route the LRS serves, served at
// GET /openapi.json. Built in code rather than kept as a static file so the
// parts that repeat (the version header, the error answers, the three
// document resources) are written once and cannot drift apart, and so the
// scopes and error codes come from the modules that enforce them. Its paths
// are also the route labels of the request metrics (app.js), so a path
// missing here is counted as "other"; test/operations/openapi.test.js
// checks the document against the router.

const { errors } = require('../errors')
const { KNOWN_SCOPES, allows } = require('../auth/scopes')

const ref = (kind, name) => ({ $ref: `#/components/${kind}/${name}` })
const schema = (name) => ref('schemas', name)
const json = (s) => ({ 'application/json': { schema: s } })
const ANONYMOUS = [] // `security: []` overrides the document-wide Basic auth

// The scopes that allow a kind of request, asked of scopes.js itself, so the
// descriptions say what the LRS enforces.
function scopesFor (need) {
  const names = [...KNOWN_SCOPES].filter((s) => allows([s], need)).map((s) => `\`${s}\``)
  return `\n\nHTTP Basic; credential scopes allowed: ${names.join(', ')}.`
}

// ---- parameters and headers ------------------------------------------------

function param (location, name, s, description, required = false) {
  return { name, in: location, required, description, schema: s }
}
const query = (name, s, description, required) => param('query', name, s, description, required)
const header = (name, s, description, required) => param('header', name, s, description, required)

const UUID = { type: 'string', format: 'uuid' }
const IRI = { type: 'string', format: 'iri' }
const TIMESTAMP = { type: 'string', format: 'date-time', description: 'ISO 8601; a time zone offset is converted to UTC' }
const FLAG = { type: 'boolean', default: false }
const JSON_AGENT = { type: 'string', description: 'JSON text of an Agent (or Identified Group)', examples: ['{"mbox":"mailto:learner@example.com"}'] }
const VERSION = { type: 'string', pattern: '^(1\\.0|2\\.0)(\\.[0-9]+)?$', examples: ['2.0.0', '1.0.3'] }

// The 1.0.3 alternate request syntax (Communication 1.3) works on every
// xAPI resource, but its form moves required query parameters into the
// body, which OpenAPI cannot say per operation: it is described once, on
// POST /xapi/statements, and in info.description.
const ALTERNATE_METHOD = query('method', { enum: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'] },
  'xAPI 1.0.3 alternate request syntax only (400 under 2.0): the request this POST stands for, on this or any other xAPI resource. ' +
  'The query then holds only `method`; headers, parameters and the content travel as fields of an application/x-www-form-urlencoded body.')

function responseHeader (description, s = { type: 'string' }) {
  return { description, schema: s }
}

// Every response carries these two (app.js, request-context.js).
const COMMON_HEADERS = {
  'X-Experience-API-Version': ref('headers', 'XapiVersion'),
  'X-Request-Id': ref('headers', 'RequestId')
}

function response (description, { content, headers = {} } = {}) {
  const r = { description, headers: { ...COMMON_HEADERS, ...headers } }
  if (content) r.content = content
  return r
}

// ---- errors ----------------------------------------------------------------

// One shared response per status, all with the Error body. 500, 503 and
// 507 can answer any request that reaches code or database, so every
// operation that lists its errors gets them.
const ERROR_RESPONSES = {
  400: ['BadRequest', 'The request is malformed: a parameter, header or body the LRS cannot accept (the message names it).'],
  401: ['Unauthorized', 'No valid HTTP Basic credentials.', { 'WWW-Authenticate': responseHeader('`Basic realm="xAPI"`') }],
  403: ['Forbidden', 'The credential\'s scopes do not allow this request.'],
  404: ['NotFound', 'No such statement, document or credential.'],
  409: ['Conflict', 'The request conflicts with what is stored (the code says how).'],
  412: ['PreconditionFailed', 'If-Match / If-None-Match did not hold.'],
  413: ['PayloadTooLarge', 'The body exceeds LRS_BODY_LIMIT (or a document LRS_MAX_DOCUMENT_BYTES).'],
  429: ['TooManyRequests', 'The LRS is at capacity; retry after Retry-After seconds.', { 'Retry-After': ref('headers', 'RetryAfter') }],
  500: ['InternalError', 'An unexpected error; the details are in the log under the requestId.'],
  503: ['ServiceUnavailable', 'The database is unavailable; retry after Retry-After seconds.', { 'Retry-After': ref('headers', 'RetryAfter') }],
  507: ['StoreFull', 'The store\'s disk is full (LRS_ERR_STORE_FULL); writes resume once an operator frees space.', { 'Retry-After': ref('headers', 'RetryAfter') }],
  504: ['QueryTimeout', 'The query ran longer than LRS_QUERY_TIMEOUT_MS: narrow it or ask for a smaller limit.']
}

function errorResponses (...statuses) {
  const out = {}
  for (const status of [...statuses, 500, 503, 507]) out[status] = ref('responses', ERROR_RESPONSES[status][0])
  return out
}

function errorComponents () {
  const out = {}
  for (const [name, description, headers = {}] of Object.values(ERROR_RESPONSES)) {
    out[name] = response(description, { content: json(schema('Error')), headers })
  }
  return out
}

const ERROR_CODES = Object.values(errors).map((e) => e.code)

// ---- operations --------------------------------------------------------------

function operation (tag, operationId, summary, { description = '', security, parameters = [], requestBody, responses }) {
  const op = { tags: [tag], operationId, summary }
  if (description) op.description = description
  if (security) op.security = security
  if (parameters.length) op.parameters = parameters
  if (requestBody) op.requestBody = requestBody
  op.responses = responses
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
  return operation(tag, operationId, 'CORS preflight', {
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
  })
}

const xapiVersion = ref('parameters', 'XapiVersion')

// ---- xAPI: statements ------------------------------------------------------------

const STATEMENT_QUERY = [
  query('statementId', UUID, 'The statement with this id, unless voided. Combines only with `format` and `attachments`.'),
  query('voidedStatementId', UUID, 'The voided statement with this id. Combines only with `format` and `attachments`.'),
  query('agent', JSON_AGENT, 'Statements whose actor or object is this Agent or Group (anywhere in the statement with `related_agents`).'),
  query('verb', IRI, 'Statements with this verb id.'),
  query('activity', IRI, 'Statements whose object is this Activity (anywhere in the statement with `related_activities`).'),
  query('registration', UUID, 'Statements with this context registration.'),
  query('related_activities', FLAG, 'Widen `activity` to context activities and SubStatements.'),
  query('related_agents', FLAG, 'Widen `agent` to authority, instructor, team, context agents and groups, and SubStatements.'),
  query('since', TIMESTAMP, 'Only statements stored after this instant (exclusive).'),
  query('until', TIMESTAMP, 'Only statements stored at or before this instant (inclusive).'),
  query('limit', { type: 'integer', minimum: 0, default: 0 }, 'Statements per page; 0 or more than LRS_STATEMENTS_MAX_LIMIT (default 100) mean that maximum.'),
  query('format', { enum: ['exact', 'ids', 'canonical'], default: 'exact' }, '`ids`: agents, activities and verbs by identifier only; `canonical`: language maps reduced to the best Accept-Language match.'),
  query('attachments', FLAG, 'Answer multipart/mixed with the attachments the LRS holds after the statements.'),
  query('ascending', FLAG, 'Oldest stored first.'),
  query('more', { type: 'string' }, 'The continuation token of a previous page\'s `more` URL; alone, or with exactly the parameters of the query it continues.')
]

const STATEMENTS_HEADERS = {
  'X-Experience-API-Consistent-Through': ref('headers', 'ConsistentThrough')
}

function statementsBody (description, statements, content = {}) {
  return {
    required: true,
    description: `${description} Attachments without \`fileUrl\` travel as multipart/mixed: first an application/json part with the statement(s), ` +
      'then one part per attachment with Content-Transfer-Encoding: binary and X-Experience-API-Hash (the SHA-2 hex of the part, as in the attachment\'s `sha2`).',
    content: { ...json(statements), 'multipart/mixed': { schema: { type: 'string' } }, ...content }
  }
}

function statementsPath () {
  const tag = 'xAPI Statements'
  const get = operation(tag, 'getStatements', 'Get one statement or a page of statements', {
    description: 'One statement by `statementId`/`voidedStatementId` (404 when absent), otherwise a StatementResult whose `more` URL fetches the next page ' +
      '(every page reports the first page\'s Consistent-Through). `statements/read/mine` sees only statements stored with its own credential.' +
      scopesFor('statements:read'),
    parameters: [xapiVersion, ...STATEMENT_QUERY, header('Accept-Language', { type: 'string' }, 'Language preference for `format=canonical`.')],
    responses: {
      200: response('The statement, or a page of them.', {
        content: {
          'application/json': { schema: { oneOf: [schema('Statement'), schema('StatementResult')] } },
          'multipart/mixed': { schema: { type: 'string', description: 'With `attachments=true`: the JSON above, then one part per attachment (X-Experience-API-Hash, Content-Transfer-Encoding: binary).' } }
        },
        headers: { ...STATEMENTS_HEADERS, 'Last-Modified': ref('headers', 'LastModified') }
      }),
      ...errorResponses(400, 401, 403, 404, 429, 504)
    }
  })
  return {
    put: operation(tag, 'putStatement', 'Store one statement with the given id', {
      description: 'Idempotent: storing the same statement again is 204, a different one with the same id 409.' + scopesFor('statements:write'),
      parameters: [xapiVersion, query('statementId', UUID, 'The statement\'s id.', true)],
      requestBody: statementsBody('One statement.', schema('Statement')),
      responses: { 204: response('Stored (or already stored, identical).', { headers: STATEMENTS_HEADERS }), ...errorResponses(400, 401, 403, 409, 413, 429) }
    }),
    post: operation(tag, 'postStatements', 'Store one or many statements', {
      description: 'All or nothing. Statements without an id get one.' + scopesFor('statements:write'),
      parameters: [xapiVersion, ALTERNATE_METHOD],
      requestBody: statementsBody('A statement or an array of statements.', { oneOf: [schema('Statement'), { type: 'array', items: schema('Statement') }] },
        { 'application/x-www-form-urlencoded': { schema: schema('AlternateRequest') } }),
      responses: {
        200: response('The ids of the statements, in the order sent.', { content: json({ type: 'array', items: UUID }), headers: STATEMENTS_HEADERS }),
        ...errorResponses(400, 401, 403, 409, 413, 429)
      }
    }),
    get,
    head: headOf(get),
    options: preflight(tag, 'optionsStatements')
  }
}

// ---- xAPI: the three document resources --------------------------------------

// One description for State, Activity Profile and Agent Profile, as
// document-routes.js is one implementation for them: they differ in their
// key parameters, their scope and whether DELETE without an id clears all.
function documentPath ({ name, title, docParam, activityId, agent, registration, deleteMany, scope }) {
  const tag = 'xAPI Documents'
  const keys = [xapiVersion]
  if (activityId) keys.push(query('activityId', IRI, 'The Activity the documents belong to.', true))
  if (agent) keys.push(query('agent', JSON_AGENT, 'The Agent the documents belong to.', true))
  if (registration) keys.push(query('registration', UUID, 'The registration the documents belong to (none: those without).'))
  const id = (required, what) => query(docParam, { type: 'string' }, what, required)
  const ifMatch = header('If-Match', { type: 'string' }, 'ETag(s) the stored document must have, or `*` (it must exist).')
  const ifNoneMatch = header('If-None-Match', { type: 'string' }, '`*`: only if no document exists.')
  const stored = { 204: response('Stored; ETag is the new version\'s.', { headers: { ETag: ref('headers', 'ETag') } }) }
  const written = { 204: response('Done.') }
  const read = scopesFor(`${scope}:read`)
  const write = scopesFor(`${scope}:write`)

  const get = operation(tag, `get${name}`, `Get a ${title} document, or the ids of them`, {
    description: `With \`${docParam}\`: the document as stored, with its ETag (SHA-1 of the content). Without: a JSON array of the ids, optionally only those updated after \`since\`.` + read,
    parameters: [...keys, id(false, 'The document; omit to list the ids.'), query('since', TIMESTAMP, 'Only when listing: ids of documents updated after this instant.'),
      header('If-None-Match', { type: 'string' }, 'ETag(s) the client holds: 304 without a body when the stored document has one of them.')],
    responses: {
      200: response('The document, or the list of ids.', {
        content: { '*/*': { schema: {} }, 'application/json': { schema: { type: 'array', items: { type: 'string' } } } },
        headers: { ETag: ref('headers', 'ETag'), 'Last-Modified': ref('headers', 'LastModified') }
      }),
      304: response('The document has not changed from the ETag named in If-None-Match.', { headers: { ETag: ref('headers', 'ETag') } }),
      ...errorResponses(400, 401, 403, 404, 429)
    }
  })
  return {
    get,
    head: headOf(get),
    put: operation(tag, `put${name}`, `Store a ${title} document`, {
      description: 'Any content type, kept as sent. Without If-Match/If-None-Match: 2.0 creates the document or answers 409 if it exists; ' +
        `1.0.3 ${name === 'State' ? 'overwrites it' : 'answers 409 if it exists, 400 otherwise'}.` + write,
      parameters: [...keys, id(true, 'The document.'), ifMatch, ifNoneMatch],
      requestBody: { required: true, content: { '*/*': { schema: {} } } },
      responses: { ...stored, ...errorResponses(400, 401, 403, 409, 412, 413, 429) }
    }),
    post: operation(tag, `post${name}`, `Merge JSON into a ${title} document`, {
      description: 'The top-level properties of the posted JSON object replace the stored object\'s (which must be JSON); absent, it is created.' + write,
      parameters: [...keys, id(true, 'The document.'), ifMatch, ifNoneMatch],
      requestBody: { required: true, content: json({ type: 'object' }) },
      responses: { ...stored, ...errorResponses(400, 401, 403, 412, 413, 429) }
    }),
    delete: operation(tag, `delete${name}`, `Delete a ${title} document${deleteMany ? ', or all of them' : ''}`, {
      description: (deleteMany ? `Without \`${docParam}\`: every document of the activity, agent and registration.` : '') + write,
      parameters: [...keys, id(!deleteMany, 'The document.'), ifMatch],
      responses: { ...written, ...errorResponses(400, 401, 403, 412, 429) }
    }),
    options: preflight(tag, `options${name}`)
  }
}

// ---- xAPI: about, activities, agents -------------------------------------------------

function aboutPath () {
  return {
    get: operation('About', 'getAbout', 'The xAPI versions this LRS speaks', {
      description: 'No credentials and no version header needed; a valid version header is echoed in X-Experience-API-Version.',
      security: ANONYMOUS,
      parameters: [header('X-Experience-API-Version', VERSION, 'Optional here.')],
      responses: { 200: response('About.', { content: json(schema('About')) }) }
    }),
    options: preflight('About', 'optionsAbout')
  }
}

// GET-only resources; other methods are 405.
function definitionPath ({ tag, operationId, summary, description, parameter, result }) {
  return {
    get: operation(tag, `get${operationId}`, summary, {
      description: description + scopesFor('define:read'),
      parameters: [xapiVersion, parameter],
      responses: { 200: response(summary, { content: json(schema(result)) }), ...errorResponses(400, 401, 403, 429, 504) }
    }),
    options: preflight(tag, `options${operationId}`)
  }
}

// ---- operations and admin -----------------------------------------------------

const HEALTH = {
  200: response('Up.', { content: json(schema('Health')) }),
  503: response('Down (or shutting down); the reason goes to the log, except `store full`, which is named.', { content: json(schema('Health')) })
}

function operationsPaths () {
  const tag = 'Operations'
  return {
    '/openapi.json': {
      get: operation(tag, 'getOpenapi', 'This document', { security: ANONYMOUS, responses: { 200: response('The OpenAPI 3.1 document.', { content: json({ type: 'object' }) }) } })
    },
    '/health/live': { get: operation(tag, 'getLiveness', 'Liveness: the process answers', { security: ANONYMOUS, responses: { 200: HEALTH[200] } }) },
    '/health/ready': {
      get: operation(tag, 'getReadiness', 'Readiness: the database answers and its indexes are ensured', { security: ANONYMOUS, responses: HEALTH })
    },
    '/metrics': {
      get: operation(tag, 'getMetrics', 'Prometheus metrics, cluster-wide', {
        description: 'Whichever worker answers, the values are the cluster\'s (process metrics per worker, labelled `worker`); forwarding outbox gauges per upstream.' + scopesFor('admin'),
        responses: {
          200: response('Prometheus text exposition format.', { content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } }),
          ...errorResponses(401, 403)
        }
      })
    }
  }
}

function adminPaths () {
  const tag = 'Admin'
  const admin = (operationId, summary, { description = '', ...rest }) => operation(tag, operationId, summary, { description: description + scopesFor('admin'), ...rest })
  const keyParam = { name: 'key', in: 'path', required: true, schema: { type: 'string' }, description: 'The credential\'s key (its Basic auth user name).' }
  const body = (s) => ({ required: true, content: json(s) })
  const upstream = query('upstream', { type: 'string' }, 'Only this upstream (as named in the metrics and dead letters); all when omitted.')
  const limit = query('limit', { type: 'integer', minimum: 1, maximum: 1000, default: 1000 }, 'At most this many.')
  return {
    '/admin/credentials': {
      get: admin('listCredentials', 'List credentials (never their secrets)', {
        responses: { 200: response('The credentials.', { content: json(schema('CredentialList')) }), ...errorResponses(401, 403) }
      }),
      post: admin('createCredential', 'Create a credential', {
        description: 'The secret is shown in this answer only (it is stored hashed); key and secret are generated when omitted. ' +
          '409: LRS_ERR_CREDENTIAL_EXISTS for a key in use, LRS_ERR_CREDENTIAL_MANAGED for the bootstrap credential\'s (LRS_ADMIN_USER).',
        requestBody: body(schema('CredentialRequest')),
        responses: {
          201: response('Created.', { content: json(schema('NewCredential')) }),
          ...errorResponses(400, 401, 403, 409, 413)
        }
      })
    },
    '/admin/credentials/{key}': {
      put: admin('setCredentialScopes', 'Change a credential\'s scopes', {
        description: 'Takes effect on every worker within LRS_CREDENTIAL_POLL_MS (500 ms by default). The bootstrap credential (LRS_ADMIN_USER) is 409 LRS_ERR_CREDENTIAL_MANAGED.',
        parameters: [keyParam],
        requestBody: body(schema('CredentialScopes')),
        responses: { 200: response('Changed.', { content: json(schema('CredentialScopesResult')) }), ...errorResponses(400, 401, 403, 404, 409, 413) }
      }),
      delete: admin('revokeCredential', 'Revoke a credential', {
        description: 'It stops working on every worker within LRS_CREDENTIAL_POLL_MS (500 ms by default). The bootstrap credential is 409 LRS_ERR_CREDENTIAL_MANAGED.',
        parameters: [keyParam],
        responses: { 204: response('Revoked.'), ...errorResponses(401, 403, 404, 409) }
      })
    },
    '/admin/agents': {
      delete: admin('eraseAgent', 'Erase an agent (right to be forgotten)', {
        description: 'Removes every statement the agent appears in other than as authority, its State and Agent Profile documents, ' +
          'attachments no other statement uses and the statements\' forwarding entries. Idempotent. The audit log names the agent by its digest only.',
        parameters: [query('agent', JSON_AGENT, 'The Agent to erase.', true)],
        responses: { 200: response('What was removed.', { content: json(schema('ErasureResult')) }), ...errorResponses(400, 401, 403) }
      })
    },
    '/admin/statements/export': {
      get: admin('exportStatements', 'Export statements as NDJSON', {
        description: 'Every statement stored in the range, voided ones included, one JSON statement (with `stored` and `authority`) per line, streamed. ' +
          'A failure after the first line cuts the stream short.',
        parameters: [query('since', TIMESTAMP, 'Only statements stored after this instant.'), query('until', TIMESTAMP, 'Only statements stored at or before this instant.')],
        responses: { 200: response('The statements.', { content: { 'application/x-ndjson': { schema: { type: 'string' } } } }), ...errorResponses(400, 401, 403) }
      })
    },
    '/admin/forwarding/dead-letters': {
      get: admin('listDeadLetters', 'Statements an upstream refused for good', {
        parameters: [upstream, limit],
        responses: { 200: response('The dead letters.', { content: json(schema('DeadLetterList')) }), ...errorResponses(400, 401, 403) }
      })
    },
    '/admin/forwarding/dead-letters/replay': {
      post: admin('replayDeadLetters', 'Put dead letters back in the forwarding outbox', {
        description: '`upstream` and `limit` may also be sent as a JSON body.',
        parameters: [upstream, limit],
        requestBody: { required: false, content: json({ type: 'object', additionalProperties: false, properties: { upstream: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 1000 } } }) },
        responses: { 200: response('How many were put back.', { content: json(schema('ReplayResult')) }), ...errorResponses(400, 401, 403) }
      })
    }
  }
}

// ---- schemas --------------------------------------------------------------------

const object = (properties, required = [], extra = {}) => ({ type: 'object', properties, ...(required.length ? { required } : {}), ...extra })
const DATE_TIME = { type: 'string', format: 'date-time' }
const SCOPES = { type: 'array', minItems: 1, uniqueItems: true, items: schema('Scope') }

function schemas () {
  const identifiers = { type: 'array', items: { type: 'string' } }
  return {
    Error: object({
      error: { const: true },
      code: { type: 'string', description: `Stable, never reused: ${ERROR_CODES.join(', ')}.` },
      message: { type: 'string' },
      requestId: { type: 'string', description: 'Also the X-Request-Id header and the log\'s reqId.' }
    }, ['error', 'code', 'message', 'requestId']),
    Health: object({ status: { enum: ['up', 'down'] }, reason: { enum: ['store full'] } }, ['status']),
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
    Scope: { enum: [...KNOWN_SCOPES], description: 'xAPI Communication 4.2 scopes, and `admin` (this LRS\'s /admin API and /metrics, not included in `all`).' },
    Credential: object({ key: { type: 'string' }, scopes: SCOPES, createdAt: { type: ['string', 'null'], format: 'date-time' }, bootstrap: { type: 'boolean', description: 'The credential of LRS_ADMIN_USER, managed by the configuration.' } },
      ['key', 'scopes', 'createdAt', 'bootstrap']),
    CredentialList: object({ credentials: { type: 'array', items: schema('Credential') } }, ['credentials']),
    CredentialRequest: object({
      key: { type: 'string', pattern: '^[A-Za-z0-9._~-]{1,128}$' },
      secret: { type: 'string', minLength: 16, maxLength: 256 },
      scopes: SCOPES
    }, ['scopes'], { additionalProperties: false }),
    NewCredential: object({ key: { type: 'string' }, secret: { type: 'string' }, scopes: SCOPES, createdAt: DATE_TIME }, ['key', 'secret', 'scopes', 'createdAt']),
    CredentialScopes: object({ scopes: SCOPES }, ['scopes'], { additionalProperties: false }),
    CredentialScopesResult: object({ key: { type: 'string' }, scopes: SCOPES }, ['key', 'scopes']),
    ErasureResult: object({
      agentDigest: { type: 'string', description: 'The agent\'s name in the audit log.' },
      removed: object(Object.fromEntries(['statements', 'attachments', 'forwardingEntries', 'stateDocuments', 'agentProfileDocuments'].map((k) => [k, { type: 'integer', minimum: 0 }])),
        ['statements', 'attachments', 'forwardingEntries', 'stateDocuments', 'agentProfileDocuments'])
    }, ['agentDigest', 'removed']),
    DeadLetter: object({
      id: { type: 'string' },
      upstream: { type: 'string' },
      statementId: UUID,
      enqueuedAt: DATE_TIME,
      status: { type: 'integer', description: 'The HTTP status the upstream answered.' },
      reason: { type: 'string', description: 'The start of the upstream\'s answer.' },
      failedAt: DATE_TIME
    }, ['id', 'upstream', 'statementId', 'enqueuedAt', 'status', 'reason', 'failedAt']),
    DeadLetterList: object({ deadLetters: { type: 'array', items: schema('DeadLetter') } }, ['deadLetters']),
    ReplayResult: object({ replayed: { type: 'integer', minimum: 0 } }, ['replayed'])
  }
}

// ---- the document ----------------------------------------------------------------

function openapiDocument ({ version }) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'xAPI Learning Record Store',
      version,
      description: 'An xAPI 1.0.3 and 2.0 LRS. xAPI requests send X-Experience-API-Version (1.0.x or 2.0.x) and are answered by that version, echoed in the response header. ' +
        'Every error is JSON (components.schemas.Error) with a stable code; xAPI resources other than /xapi/about need HTTP Basic credentials whose scopes allow the request. ' +
        'Under 1.0.3 every xAPI resource also takes the alternate request syntax (POST ?method=…, see POST /xapi/statements); ' +
        'OPTIONS answers CORS preflights on every /xapi path (LRS_CORS_ORIGINS).',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' }
    },
    servers: [{ url: '/' }],
    security: [{ basicAuth: [] }],
    tags: [
      { name: 'xAPI Statements', description: 'Communication 2.1' },
      { name: 'xAPI Documents', description: 'State, Activity Profile and Agent Profile (Communication 2.3, 2.6, 2.7), with ETag concurrency control.' },
      { name: 'xAPI Agents and Activities', description: 'Communication 2.4, 2.5' },
      { name: 'About', description: 'Communication 2.8' },
      { name: 'Admin', description: 'The operators\' API; scope `admin` only.' },
      { name: 'Operations', description: 'Health checks, metrics and this document.' }
    ],
    paths: {
      '/xapi/about': aboutPath(),
      '/xapi/statements': statementsPath(),
      '/xapi/activities/state': documentPath({ name: 'State', title: 'State', docParam: 'stateId', activityId: true, agent: true, registration: true, deleteMany: true, scope: 'state' }),
      '/xapi/activities/profile': documentPath({ name: 'ActivityProfile', title: 'Activity Profile', docParam: 'profileId', activityId: true, scope: 'profile' }),
      '/xapi/agents/profile': documentPath({ name: 'AgentProfile', title: 'Agent Profile', docParam: 'profileId', agent: true, scope: 'profile' }),
      '/xapi/activities': definitionPath({
        tag: 'xAPI Agents and Activities',
        operationId: 'Activity',
        summary: 'The Activity with this id',
        description: 'Its definition merged from the stored statements that carry it (the newest value wins, language maps merged); `{objectType, id}` for an unknown one.',
        parameter: query('activityId', IRI, 'The Activity.', true),
        result: 'Activity'
      }),
      '/xapi/agents': definitionPath({
        tag: 'xAPI Agents and Activities',
        operationId: 'Person',
        summary: 'The Person for an Agent',
        description: 'This LRS keeps no links between Agents: the Person holds the identifiers of the Agent asked about. A Group is 400.',
        parameter: query('agent', JSON_AGENT, 'The Agent.', true),
        result: 'Person'
      }),
      ...operationsPaths(),
      ...adminPaths()
    },
    components: {
      securitySchemes: { basicAuth: { type: 'http', scheme: 'basic', description: 'A credential\'s key and secret (created with `npm run credential` or POST /admin/credentials).' } },
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
      schemas: schemas()
    }
  }
}

module.exports = { openapiDocument }
