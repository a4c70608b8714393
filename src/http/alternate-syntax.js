'use strict'

// xAPI 1.0.3 alternate request syntax (Communication 1.3): a POST with only
// `method` in the query string and an application/x-www-form-urlencoded
// body whose fields carry the headers, the content and the parameters.
// The request is rewritten into the request it stands for and goes on
// through the normal routes. 2.0 removed the syntax: such requests are 400.

const querystring = require('node:querystring')
const { errors } = require('../errors')
const { parseMediaType } = require('./media-type')
const { negotiate } = require('./xapi-version')

const METHODS = new Set(['GET', 'HEAD', 'PUT', 'POST', 'DELETE'])
const HEADER_FIELDS = new Set(['authorization', 'x-experience-api-version', 'content-type', 'content-length', 'if-match', 'if-none-match'])

function alternateRequestSyntax (req, res, next) {
  const query = req.query
  if (query.method === undefined) return next()
  const formFields = parseMediaType(req.headers['content-type']).type === 'application/x-www-form-urlencoded'
    ? querystring.parse(req.rawBody.toString('utf8'))
    : {}
  const version = negotiate(req.headers['x-experience-api-version']) || negotiate(fieldValue(formFields, 'x-experience-api-version'))
  if (version === '2.0.0') return next(errors.BadRequest('the alternate request syntax (?method=) is not part of xAPI 2.0'))
  if (req.method !== 'POST') return next(errors.BadRequest('the alternate request syntax requires POST'))
  const method = String(query.method).toUpperCase()
  if (!METHODS.has(method)) return next(errors.BadRequest(`method "${query.method}" is not supported`))
  if (Object.keys(query).length > 1) return next(errors.BadRequest('with the alternate request syntax, the query string holds only "method"'))
  if (parseMediaType(req.headers['content-type']).type !== 'application/x-www-form-urlencoded') {
    return next(errors.BadRequest('the alternate request syntax requires Content-Type application/x-www-form-urlencoded'))
  }
  const params = Object.create(null) // keys are the client's
  let content
  for (const [name, value] of Object.entries(formFields)) {
    if (HEADER_FIELDS.has(name.toLowerCase())) req.headers[name.toLowerCase()] = String(value)
    else if (name === 'content') content = String(value)
    else params[name] = value
  }
  if (content !== undefined && !fieldValue(formFields, 'content-type')) req.headers['content-type'] = 'application/json'
  if (content === undefined) delete req.headers['content-type']
  req.method = method
  req.rawBody = Buffer.from(content || '', 'utf8')
  req.headers['content-length'] = String(req.rawBody.length)
  Object.defineProperty(req, 'query', { value: params, writable: true, configurable: true, enumerable: true })
  next()
}

function fieldValue (fields, lowerName) {
  for (const [k, v] of Object.entries(fields)) if (k.toLowerCase() === lowerName) return String(v)
  return undefined
}

module.exports = { alternateRequestSyntax }
