'use strict'

const { errors } = require('../errors')
const { closeAfterAnswer } = require('./unread-body')

// Reads the whole request body into req.rawBody (a Buffer), up to `limit`
// bytes; larger bodies get 413 (Communication 3.2.s3.b11) without being read.
// Resources parse it themselves: statements may be multipart/mixed and
// documents are stored byte for byte.
//
// Memory stays bounded under overload: the bytes of all bodies held by this
// worker are counted until their responses finish, and a request that would
// take the total past `maxInFlightBytes` gets 429 before its body is read.
function rawBody ({ limit, maxInFlightBytes }) {
  let held = 0
  readBody.heldBytes = () => held
  return readBody
  function readBody (req, res, next) {
    req.rawBody = EMPTY
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return next()
    const declared = Number(req.headers['content-length'])
    if (declared > limit) return rejectTooLarge(req, res, next, limit)
    if (held > 0 && held + (declared || 0) > maxInFlightBytes) return rejectOverloaded(req, next)
    const chunks = []
    let size = 0
    let failed = false
    let released = false
    const release = () => {
      if (released) return
      released = true
      held -= size
    }
    res.once('close', release) // emitted once the response is done or the connection is gone
    req.on('data', (chunk) => {
      if (failed) return
      size += chunk.length
      held += chunk.length
      if (size > limit) {
        failed = true
        return rejectTooLarge(req, res, next, limit)
      }
      if (held > maxInFlightBytes && held > size) {
        failed = true
        return rejectOverloaded(req, next)
      }
      chunks.push(chunk)
    })
    req.on('end', () => {
      if (failed) return
      req.rawBody = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)
      next()
    })
    req.on('error', (err) => { if (!failed) { failed = true; next(errors.BadRequest(`request body could not be read: ${err.message}`)) } })
  }
}

const EMPTY = Buffer.alloc(0)

function rejectOverloaded (req, next) {
  req.resume()
  next(errors.TooManyRequests('too many request bodies are being processed; retry shortly', { headers: { 'Retry-After': '1' } }))
}

function rejectTooLarge (req, res, next, limit) {
  // The rest is discarded, not kept, and the connection closes after the
  // 413 without losing it (unread-body.js): a body this large is not worth
  // receiving whole.
  closeAfterAnswer(req, res)
  req.resume()
  next(errors.PayloadTooLarge(`request body is larger than the limit of ${limit} bytes`))
}


// 1.0.3 alternate-syntax requests that carry their credentials in the form
// body are read before they are authenticated: with a body limit and a
// byte budget of their own, so they can never crowd out authenticated
// requests.
const DEFERRED_AUTH_BODY_LIMIT = 1024 * 1024
const DEFERRED_AUTH_IN_FLIGHT_BYTES = 4 * 1024 * 1024

function requestBodies ({ limit, maxInFlightBytes }) {
  const authenticated = rawBody({ limit, maxInFlightBytes })
  const deferred = rawBody({ limit: Math.min(limit, DEFERRED_AUTH_BODY_LIMIT), maxInFlightBytes: DEFERRED_AUTH_IN_FLIGHT_BYTES })
  function readRequestBody (req, res, next) {
    return (req.authDeferred ? deferred : authenticated)(req, res, next)
  }
  readRequestBody.heldBytes = () => authenticated.heldBytes() + deferred.heldBytes()
  return readRequestBody
}

module.exports = { requestBodies }
