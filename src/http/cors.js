'use strict'

// CORS for browser content (2.0 dropped the alternate request syntax, so
// cross-origin content needs it). Content sends credentials, so an allowed
// origin is echoed (never `*`) with Access-Control-Allow-Credentials on the
// preflight and on the actual response alike; an origin outside
// LRS_CORS_ORIGINS gets no CORS headers, which the browser enforces.
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Experience-API-Version, If-Match, If-None-Match, Accept-Language, X-Experience-API-Hash, X-LRS-Store, Last-Event-ID'
const EXPOSE_HEADERS = 'ETag, Last-Modified, X-Experience-API-Version, X-Experience-API-Consistent-Through, Content-Type, X-Request-Id, Retry-After'

function cors ({ corsOrigins }) {
  const any = corsOrigins.includes('*')
  const allowed = new Set(corsOrigins)
  return function corsHeaders (req, res, next) {
    const origin = req.headers.origin
    if (origin !== undefined) {
      res.setHeader('Vary', 'Origin')
      if (any || allowed.has(origin)) {
        res.setHeader('Access-Control-Allow-Origin', origin)
        res.setHeader('Access-Control-Allow-Credentials', 'true')
        res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS)
      }
    }
    if (req.method === 'OPTIONS') {
      if (origin !== undefined && (any || allowed.has(origin))) {
        res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, PUT, POST, DELETE, OPTIONS')
        res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS)
        res.setHeader('Access-Control-Max-Age', '86400')
      }
      return res.status(204).end()
    }
    next()
  }
}

module.exports = { cors }
