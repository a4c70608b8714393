'use strict'

// /xapi/statements (Communication 2.1): PUT one statement, POST one or many,
// GET/HEAD one or a page. Thin: parsing and rules live beside this file.

const express = require('express')
const { errors } = require('../../errors')
const { httpDate, lastModified } = require('../../http/http-date')
const { requireScope, authorityFor } = require('../../auth/basic-auth')
const { readsOnlyOwnStatements } = require('../../auth/scopes')
const { agentKey } = require('../agents/agent-keys')
const { readStatementBody } = require('./statement-request-body')
const { statementParameters } = require('./statement-parameters')
const { renderStatements } = require('./read-statements')
const { buildMultipart } = require('../../http/multipart')

const JSON_TYPE = 'application/json; charset=utf-8'

function statementsRoutes ({ config, credentials, validator, statementWriter, statementReader, attachments, moreCursor }) {
  const router = express.Router({ caseSensitive: true })
  const jsonLimits = { maxDepth: config.maxJsonDepth, maxStringLength: config.maxStringLength }
  const parameters = statementParameters(validator)
  const write = requireScope(credentials, 'statements:write')
  const read = requireScope(credentials, 'statements:read')

  router.put('/statements', write, async (req, res) => {
    const id = parameters.parsePut(req.query).statementId
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
  })

  router.post('/statements', write, async (req, res) => {
    parameters.parsePost(req.query)
    const { body, texts, parts } = readStatementBody(req, jsonLimits)
    const statements = Array.isArray(body) ? body : [body]
    res.locals.statementCount = statements.length
    const ids = await statementWriter.storeStatements({ statements, texts, parts, credential: req.credential, xapiVersion: req.xapiVersion })
    res.status(200).type(JSON_TYPE).end(JSON.stringify(ids))
  })

  router.get('/statements', read, async (req, res) => {
    const parsed = await parseGet(req)
    const acceptLanguage = req.headers['accept-language']
    const scope = { authorityKey: readsOnlyOwnStatements(req.credential.scopes) ? agentKey(authorityFor(req.credential, config)) : null }
    if (parsed.single) {
      const row = await statementReader.getOne(parsed.single, scope)
      res.locals.statementCount = 1
      res.setHeader('Last-Modified', httpDate(row.stored))
      const [text] = renderStatements([row], { format: parsed.format, acceptLanguage })
      return send(res, text, [row], parsed.attachments)
    }
    // Every page of one walk reports the first page's Consistent-Through:
    // what a page returns was all there when the walk began.
    const consistentThrough = parsed.consistentThrough || res.locals.consistentThrough
    res.setHeader('X-Experience-API-Consistent-Through', consistentThrough.toISOString())
    const page = await statementReader.getPage(parsed.query, parsed.after, scope)
    res.locals.statementCount = page.rows.length
    if (page.rows.length) res.setHeader('Last-Modified', lastModified(page.rows.map((r) => r.stored)))
    const moreUrl = page.next
      ? await moreCursor.encode(req.baseUrl + '/statements', { query: parsed.query, next: page.next, format: parsed.format, attachments: parsed.attachments, consistentThrough })
      : ''
    const text = `{"statements":[${renderStatements(page.rows, { format: parsed.format, acceptLanguage }).join(',')}],"more":${JSON.stringify(moreUrl)}}`
    return send(res, text, page.rows, parsed.attachments)
  })

  // A `more` token alone, or with the same parameters it was made from;
  // otherwise the parameters themselves.
  async function parseGet (req) {
    const { more, ...params } = req.query
    const options = { xapiVersion: req.xapiVersion, maxLimit: config.statementsMaxLimit }
    if (more === undefined) return parameters.parseGet(params, options)
    if (typeof more !== 'string') throw errors.InvalidParameter('parameter "more" is given more than once')
    const continued = await moreCursor.decode(more, { maxLimit: config.statementsMaxLimit })
    if (Object.keys(params).length) {
      const original = parameters.parseGet(params, options)
      if (original.single || !moreCursor.sameRequest(original, continued)) {
        throw errors.InvalidParameter('more cannot be combined with parameters other than those of the query it continues')
      }
    }
    return continued
  }

  // attachments=true: multipart/mixed, the statements first, then each
  // attachment the LRS holds (Communication 2.1.3).
  async function send (res, text, rows, withAttachments) {
    if (!withAttachments) return res.type(JSON_TYPE).end(text)
    const sha2s = new Set()
    for (const r of rows) {
      const s = JSON.parse(r.body)
      for (const a of [...(s.attachments || []), ...((s.object && s.object.attachments) || [])]) if (a.sha2) sha2s.add(a.sha2.toLowerCase())
    }
    const found = await attachments.findMany([...sha2s])
    const boundary = 'xapi-' + Math.random().toString(36).slice(2)
    const parts = [{ headers: { 'Content-Type': 'application/json' }, body: text }]
    for (const [sha2, a] of found) {
      parts.push({ headers: { 'Content-Type': a.contentType, 'Content-Transfer-Encoding': 'binary', 'X-Experience-API-Hash': sha2 }, body: a.body })
    }
    res.setHeader('Content-Type', `multipart/mixed; boundary=${boundary}`)
    res.end(buildMultipart(parts, boundary))
  }

  router.all('/statements', (req, res, next) => next(errors.MethodNotAllowed(`${req.method} is not supported on /statements`)))
  return router
}

// Communication 2.1.3: X-Experience-API-Consistent-Through on every
// statements response, errors included (see write-batch.js for why "now
// minus the margin" holds on every worker).
function consistentThrough (config) {
  return function setConsistentThrough (req, res, next) {
    const through = new Date(Date.now() - config.consistencyMarginMs)
    res.locals.consistentThrough = through
    res.setHeader('X-Experience-API-Consistent-Through', through.toISOString())
    next()
  }
}

module.exports = { statementsRoutes, consistentThrough }
