'use strict'

// /xapi/statements (Communication 2.1): PUT one statement, POST one or many,
// GET/HEAD one or a page. Thin: parsing and rules live beside this file.

const { errors } = require('../../errors')
const { httpDate, lastModified } = require('../../http/http-date')
const { authorityFor } = require('../../auth/authenticate')
const { readsOnlyOwnStatements } = require('../../auth/scopes')
const { agentKey } = require('../agents/agent-keys')
const { readStatementBody } = require('./statement-request-body')
const statementParameters = require('./statement-parameters')
const { renderStatements } = require('./read-statements')
const { buildMultipart } = require('../../http/multipart')
const { utf8Concat } = require('../../lib/utf8-concat')
const { qualify, unqualify } = require('../../stores/store-keys')
const { ref, schema, json, header, response, UUID } = require('../../http/openapi-parts')

const JSON_TYPE = 'application/json; charset=utf-8'
const TAG = 'xAPI Statements'
const STATEMENTS_HEADERS = { 'X-Experience-API-Consistent-Through': ref('headers', 'ConsistentThrough') }

// The 1.0.3 alternate request syntax (Communication 1.3) works on every
// xAPI resource (http/alternate-syntax.js rewrites the request before any
// route sees it), but its form moves required query parameters into the
// body, which OpenAPI cannot say per operation: it is described once, here,
// and in info.description.
const ALTERNATE_METHOD = {
  name: 'method',
  in: 'query',
  required: false,
  description: 'xAPI 1.0.3 alternate request syntax only (400 under 2.0): the request this POST stands for, on this or any other xAPI resource. ' +
    'The query then holds only `method`; headers, parameters and the content travel as fields of an application/x-www-form-urlencoded body.',
  schema: { enum: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'] }
}

function statementsBody (description, statements, content = {}) {
  return {
    kind: 'raw',
    required: true,
    description: `${description} Attachments without \`fileUrl\` travel as multipart/mixed: first an application/json part with the statement(s), ` +
      'then one part per attachment with Content-Transfer-Encoding: binary and X-Experience-API-Hash (the SHA-2 hex of the part, as in the attachment\'s `sha2`).',
    content: { ...json(statements), 'multipart/mixed': { schema: { type: 'string' } }, ...content }
  }
}

// Errors of a statements request body (store-statements.js and the body
// readers beside it).
const WRITE_ERRORS = [errors.InvalidStatement, errors.InvalidSignature, errors.InvalidAttachments, errors.ConflictingStatement]

function statementsRoutes ({ config, validator, statementWriter, statementReader, attachments, moreCursor }) {
  const jsonLimits = { maxDepth: config.maxJsonDepth, maxStringLength: config.maxStringLength }
  const parseGetQuery = statementParameters.statementQuery(validator)

  const put = {
    method: 'put',
    path: '/statements',
    tag: TAG,
    operationId: 'putStatement',
    summary: 'Store one statement with the given id',
    description: 'Idempotent: storing the same statement again is 204, a different one with the same id 409.',
    scope: 'statements:write',
    query: statementParameters.PUT,
    body: statementsBody('One statement.', schema('Statement')),
    responses: { 204: response('Stored (or already stored, identical).', { headers: STATEMENTS_HEADERS }) },
    errors: WRITE_ERRORS,
    async handler (req, res, { query }) {
      const id = query.statementId
      const { body, texts, parts } = readStatementBody(req, jsonLimits)
      if (Array.isArray(body)) throw errors.InvalidStatement('PUT /statements takes a single statement, not an array')
      if (body && typeof body === 'object' && body.id !== undefined && String(body.id).toLowerCase() !== id.toLowerCase()) {
        throw errors.InvalidStatement('statement id does not match the statementId parameter')
      }
      const statement = body && typeof body === 'object' ? { ...body, id: body.id !== undefined ? body.id : id } : body
      res.locals.statementCount = 1
      // The client's text lacks the id when it came from the parameter only.
      const sentTexts = body && body.id !== undefined ? texts : null
      await statementWriter.storeStatements({ statements: [statement], texts: sentTexts, parts, credential: req.credential, xapiVersion: req.xapiVersion })
      res.status(204).end()
    }
  }

  const post = {
    method: 'post',
    path: '/statements',
    tag: TAG,
    operationId: 'postStatements',
    summary: 'Store one or many statements',
    description: 'All or nothing. Statements without an id get one.',
    scope: 'statements:write',
    query: statementParameters.POST,
    parameters: [ALTERNATE_METHOD],
    body: statementsBody('A statement or an array of statements.', { oneOf: [schema('Statement'), { type: 'array', items: schema('Statement') }] },
      { 'application/x-www-form-urlencoded': { schema: schema('AlternateRequest') } }),
    responses: { 200: response('The ids of the statements, in the order sent.', { content: json({ type: 'array', items: UUID }), headers: STATEMENTS_HEADERS }) },
    errors: [...WRITE_ERRORS, errors.DuplicateStatementId],
    async handler (req, res) {
      const { body, texts, parts } = readStatementBody(req, jsonLimits)
      const statements = Array.isArray(body) ? body : [body]
      res.locals.statementCount = statements.length
      const ids = await statementWriter.storeStatements({ statements, texts, parts, credential: req.credential, xapiVersion: req.xapiVersion })
      res.status(200).type(JSON_TYPE).end(JSON.stringify(ids))
    }
  }

  const get = {
    method: 'get',
    path: '/statements',
    tag: TAG,
    operationId: 'getStatements',
    summary: 'Get one statement or a page of statements',
    description: 'One statement by `statementId`/`voidedStatementId` (404 when absent), otherwise a StatementResult whose `more` URL fetches the next page ' +
      '(every page reports the first page\'s Consistent-Through). `statements/read/mine` sees only statements stored with its own credential.',
    scope: 'statements:read',
    query: statementParameters.GET,
    parameters: [header('Accept-Language', { type: 'string' }, 'Language preference for `format=canonical`.')],
    responses: {
      200: response('The statement, or a page of them.', {
        content: {
          'application/json': { schema: { oneOf: [schema('Statement'), schema('StatementResult')] } },
          'multipart/mixed': { schema: { type: 'string', description: 'With `attachments=true`: the JSON above, then one part per attachment (X-Experience-API-Hash, Content-Transfer-Encoding: binary).' } }
        },
        headers: { ...STATEMENTS_HEADERS, 'Last-Modified': ref('headers', 'LastModified') }
      })
    },
    errors: [errors.NotFound, errors.QueryTimeout],
    async handler (req, res, { query }) {
      const parsed = await parseGet(req, query)
      const acceptLanguage = req.headers['accept-language']
      const scope = { store: req.credential.store, authorityKey: readsOnlyOwnStatements(req.credential.scopes) ? agentKey(authorityFor(req.credential, config)) : null }
      if (parsed.single) {
        const row = await statementReader.getOne(parsed.single, scope)
        res.locals.statementCount = 1
        res.setHeader('Last-Modified', httpDate(row.stored))
        const [text] = renderStatements([row], { format: parsed.format, acceptLanguage })
        return send(res, text, [row], parsed.attachments, req.credential.store)
      }
      // Every page of one walk reports the first page's Consistent-Through:
      // what a page returns was all there when the walk began.
      const consistentThrough = parsed.consistentThrough || res.locals.consistentThrough
      res.setHeader('X-Experience-API-Consistent-Through', consistentThrough.toISOString())
      const page = await statementReader.getPage(parsed.query, parsed.after, scope)
      res.locals.statementCount = page.rows.length
      if (page.rows.length) res.setHeader('Last-Modified', lastModified(page.rows.map((r) => r.stored)))
      const moreUrl = page.next
        ? await moreCursor.encode(req.baseUrl + '/statements', { query: parsed.query, next: page.next, format: parsed.format, attachments: parsed.attachments, consistentThrough, store: req.credential.store || 0 })
        : ''
      const pieces = ['{"statements":[']
      renderStatements(page.rows, { format: parsed.format, acceptLanguage }).forEach((text, i) => pieces.push(i ? ',' + text : text))
      pieces.push(`],"more":${JSON.stringify(moreUrl)}}`)
      return send(res, utf8Concat(pieces), page.rows, parsed.attachments, req.credential.store)
    }
  }

  // A `more` token alone, or with the same parameters it was made from;
  // otherwise the parameters themselves.
  async function parseGet (req, { more, ...params }) {
    const options = { xapiVersion: req.xapiVersion, maxLimit: config.statementsMaxLimit }
    if (more === undefined) return parseGetQuery(params, options)
    const continued = await moreCursor.decode(more, { maxLimit: config.statementsMaxLimit, store: req.credential.store || 0 })
    if (Object.keys(params).length) {
      const original = parseGetQuery(params, options)
      if (original.single || !moreCursor.sameRequest(original, continued)) {
        throw errors.InvalidParameter('more cannot be combined with parameters other than those of the query it continues')
      }
    }
    return continued
  }

  // attachments=true: multipart/mixed, the statements first, then each
  // attachment the LRS holds (Communication 2.1.3).
  async function send (res, body, rows, withAttachments, store) {
    if (!withAttachments) return res.type(JSON_TYPE).end(body)
    const sha2s = new Set()
    for (const r of rows) {
      const s = JSON.parse(r.body)
      for (const a of [...(s.attachments || []), ...((s.object && s.object.attachments) || [])]) if (a.sha2) sha2s.add(a.sha2.toLowerCase())
    }
    const found = await attachments.findMany([...sha2s].map((sha2) => qualify(store, sha2))) // the store's own (store-keys.js)
    const boundary = 'xapi-' + Math.random().toString(36).slice(2)
    const parts = [{ headers: { 'Content-Type': 'application/json' }, body }]
    for (const [key, a] of found) {
      const sha2 = unqualify(key)
      parts.push({ headers: { 'Content-Type': a.contentType, 'Content-Transfer-Encoding': 'binary', 'X-Experience-API-Hash': sha2 }, body: a.body })
    }
    res.setHeader('Content-Type', `multipart/mixed; boundary=${boundary}`)
    res.end(buildMultipart(parts, boundary))
  }

  return [put, post, get]
}

// Communication 2.1.3: X-Experience-API-Consistent-Through on every
// statements response, errors included (see write-batch.js for why "now
// minus the margin" holds on every worker, and minus the clock skew
// bound on every host).
function consistentThrough (config) {
  const behindMs = config.consistencyMarginMs + config.clockSkewMs
  return function setConsistentThrough (req, res, next) {
    const through = new Date(Date.now() - behindMs)
    res.locals.consistentThrough = through
    res.setHeader('X-Experience-API-Consistent-Through', through.toISOString())
    next()
  }
}

module.exports = { statementsRoutes, consistentThrough }
