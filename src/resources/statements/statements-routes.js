'use strict'

// /xapi/statements (Communication 2.1): PUT one statement, POST one or many,
// GET/HEAD one or a page. Thin: parsing and rules live beside this file.

const express = require('express')
const { errors } = require('../../errors')
const { httpDate } = require('../../http/http-date')
const { requireAuth, authorityFor } = require('../../auth/basic-auth')
const { readsOnlyOwnStatements } = require('../../auth/scopes')
const { agentKey } = require('./agent-keys')
const { UUID } = require('../../validation/formats')
const { readStatementBody } = require('./statement-request-body')
const { parseStatementQuery } = require('./statement-query')
const { renderStatements } = require('./read-statements')
const { encodeMore, decodeMore } = require('./more-cursor')
const { buildMultipart } = require('../../http/multipart')

const JSON_TYPE = 'application/json; charset=utf-8'

function statementsRoutes ({ config, credentials, validator, statementWriter, statementReader, attachments }) {
  const router = express.Router({ caseSensitive: true })
  const write = requireAuth(credentials, 'statements:write')
  const read = requireAuth(credentials, 'statements:read')

  router.put('/statements', write, async (req, res) => {
    for (const name of Object.keys(req.query)) if (name !== 'statementId') throw errors.InvalidParameter(`unknown parameter "${name}"`)
    const id = req.query.statementId
    if (typeof id !== 'string' || !UUID.test(id)) throw errors.InvalidParameter('PUT /statements requires a statementId parameter that is a UUID')
    const { body, texts, parts } = readStatementBody(req)
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
    const names = Object.keys(req.query)
    if (names.length) throw errors.InvalidParameter(`unknown parameter "${names[0]}"`)
    const { body, texts, parts } = readStatementBody(req)
    const statements = Array.isArray(body) ? body : [body]
    res.locals.statementCount = statements.length
    const ids = await statementWriter.storeStatements({ statements, texts, parts, credential: req.credential, xapiVersion: req.xapiVersion })
    res.status(200).type(JSON_TYPE).end(JSON.stringify(ids))
  })

  router.get('/statements', read, async (req, res) => {
    const more = req.query.more
    let parsed
    if (more !== undefined) {
      if (Object.keys(req.query).length > 1) throw errors.InvalidParameter('more cannot be combined with other parameters')
      parsed = decodeMore(String(more))
    } else {
      parsed = parseStatementQuery(req.query, { validator, xapiVersion: req.xapiVersion, maxLimit: config.statementsMaxLimit })
    }
    const acceptLanguage = req.headers['accept-language']
    const scope = { authorityKey: readsOnlyOwnStatements(req.credential.scopes) ? agentKey(authorityFor(req.credential, config)) : null }
    if (parsed.single) {
      const row = await statementReader.getOne(parsed.single, scope)
      res.locals.statementCount = 1
      res.setHeader('Last-Modified', httpDate(row.stored))
      const [text] = renderStatements([row], { format: parsed.format, acceptLanguage })
      return send(res, text, [row], parsed.attachments)
    }
    const page = await statementReader.getPage(parsed.query, parsed.cursor, scope)
    res.locals.statementCount = page.rows.length
    if (page.rows.length) res.setHeader('Last-Modified', httpDate(page.rows.reduce((m, r) => (r.stored > m ? r.stored : m), page.rows[0].stored)))
    const moreUrl = page.next ? encodeMore(req.baseUrl + '/statements', parsed.query, page.next, parsed.format, parsed.attachments) : ''
    const text = `{"statements":[${renderStatements(page.rows, { format: parsed.format, acceptLanguage }).join(',')}],"more":${JSON.stringify(moreUrl)}}`
    return send(res, text, page.rows, parsed.attachments)
  })

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
// statements response, errors included. Statements still being written in
// this worker hold it back to the oldest of them.
function consistentThrough (batcher) {
  return function setConsistentThrough (req, res, next) {
    const pending = batcher.oldestPending()
    const through = pending ? new Date(pending.getTime() - 1) : new Date()
    res.setHeader('X-Experience-API-Consistent-Through', through.toISOString())
    next()
  }
}

module.exports = { statementsRoutes, consistentThrough }
