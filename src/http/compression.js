'use strict'

// Compressed answers, gzip or brotli as the client's Accept-Encoding asks
// (RFC 9110 12.5.3), for what is large and crosses real networks: pages of
// statements (100 campus statements are about 200 KB of JSON), the /admin
// API's JSON and /openapi.json here; the console's and the docs' static
// files in static-files.js, compressed once, not per request.
//
// Not compressed: the document resources (State, Activity and Agent
// Profile: the stored bytes with their strong ETags, which name those
// bytes, not a compressed copy), statements with attachments
// (multipart/mixed, mostly media that is compressed already), anything
// streamed, and anything under LRS_COMPRESSION_MIN_BYTES (a packet or
// two, where compressing saves nothing worth its CPU).
//
// Each route served here sends its body with one res.end(), so the whole
// body is compressed in one call on the thread pool (zlib's asynchronous
// calls; the event loop goes on), and goes out with its Content-Length.
// Brotli at quality 4 and gzip at level 6: about 1 ms of CPU for a page of
// 100 statements, to under a twentieth of its size; brotli 5 and 6 cost
// 1.5 to 2 times that for 10 % fewer bytes, and under 1 KiB the saving is
// under a packet (bench/reports/2026-12-06-compression).

const zlib = require('node:zlib')

const DYNAMIC = {
  br: (body, done) => zlib.brotliCompress(body, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
      [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length
    }
  }, done),
  gzip: (body, done) => zlib.gzip(body, { level: 6 }, done)
}

// The coding to answer with: 'br', 'gzip', or null (the body as it is).
// The client's weights (q) decide; on a tie brotli (smaller at the same
// cost). `*` stands for the codings not named; identity, acceptable
// always, wins only where it is named with a higher weight than both.
function preferredCoding (acceptEncoding) {
  if (!acceptEncoding) return null
  let br = null
  let gzip = null
  let identity = null
  let any = null
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.split(';')
    let q = 1
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p)
      q = m ? Number(m[1]) : 0 // an unreadable weight accepts nothing
    }
    const coding = name.trim().toLowerCase()
    if (coding === 'br') br = q
    else if (coding === 'gzip' || coding === 'x-gzip') gzip = q
    else if (coding === 'identity') identity = q
    else if (coding === '*') any = q
  }
  if (br === null) br = any || 0
  if (gzip === null) gzip = any || 0
  const best = Math.max(br, gzip)
  if (best <= 0 || (identity !== null && identity > best)) return null
  return br >= gzip ? 'br' : 'gzip'
}

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\b/i

// Middleware: the JSON answers of the routes after it, compressed when the
// client accepts it and they are at least `minBytes`. Every JSON answer
// says Vary: Accept-Encoding, compressed or not, so that a cache in between
// keeps them apart.
function compressJson ({ minBytes }) {
  return function compressJsonAnswer (req, res, next) {
    const end = res.end
    res.end = function endCompressed (chunk, encoding, callback) {
      res.end = end
      if (typeof chunk === 'function' || chunk === undefined || chunk === null || res.headersSent ||
        res.statusCode === 204 || res.statusCode === 304 || res.getHeader('Content-Encoding') !== undefined ||
        !JSON_TYPE.test(String(res.getHeader('Content-Type') || ''))) {
        return end.call(this, chunk, encoding, callback)
      }
      if (typeof encoding === 'function') {
        callback = encoding
        encoding = undefined
      }
      res.vary('Accept-Encoding')
      const body = typeof chunk === 'string' ? Buffer.from(chunk, encoding || 'utf8') : chunk
      const coding = body.length >= minBytes ? preferredCoding(req.headers['accept-encoding']) : null
      if (!coding) {
        res.setHeader('Content-Length', body.length) // Node leaves it out of HEAD answers; GET has it
        return end.call(this, body, callback)
      }
      DYNAMIC[coding](body, (err, compressed) => {
        if (res.destroyed) return // the client went away meanwhile
        if (err) { // never seen; the body as it is then
          req.log.warn({ err }, 'compressing an answer failed; sent as it is')
          return end.call(res, body, callback)
        }
        res.setHeader('Content-Encoding', coding)
        res.setHeader('Content-Length', compressed.length)
        end.call(res, compressed, callback)
      })
      return this
    }
    next()
  }
}

module.exports = { compressJson, preferredCoding }
