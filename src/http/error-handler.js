'use strict'

const { LrsError, errors } = require('../errors')
const { describeJsonError } = require('../validation/json-syntax-error')

// The one place errors become HTTP. 4xx: message, code and request id.
// 5xx: full detail to the log, a generic message and the request id to the
// client; never a stack trace. Storage errors arrive already translated
// into the catalogue (see src/storage/).
function toLrsError (err) {
  if (err instanceof LrsError) return err
  // express.json() (the /admin API)
  if (err && err.type === 'entity.too.large') return errors.PayloadTooLarge()
  if (err && err.type === 'entity.parse.failed') {
    const where = typeof err.body === 'string' && describeJsonError(err.body)
    return errors.InvalidJson(where ? `request body is not valid JSON: ${where}` : undefined)
  }
  return null
}

function errorHandler () {
  // eslint-disable-next-line no-unused-vars
  return function handleError (err, req, res, next) {
    const known = toLrsError(err)
    if (!known) req.log.error({ err, method: req.method, path: req.path }, 'unhandled error')
    else if (known.status >= 500 && !known.quiet) req.log.warn({ err: known.cause || known, code: known.code, method: req.method, path: req.path }, known.message)
    const e = known || errors.Internal()
    res.locals.errorCode = e.code
    if (res.headersSent) return res.destroy()
    if (e.headers) res.set(e.headers)
    if (e.status === 503 || e.status === 429) res.set('Retry-After', res.get('Retry-After') || '1')
    if (e.status === 507) res.set('Retry-After', res.get('Retry-After') || '60') // until an operator frees space
    res.status(e.status)
    res.set('Content-Type', 'application/json; charset=utf-8')
    // an OAuth endpoint's refusal names its RFC 6749 error as well
    const body = e.oauthError ? { error: e.oauthError, error_description: e.message } : { error: true }
    res.end(JSON.stringify({ ...body, code: e.code, message: e.message, requestId: req.id }))
  }
}

function notFound (req, res, next) {
  next(errors.NotFound(`no resource at ${req.method} ${req.path}`))
}

module.exports = { errorHandler, notFound }
