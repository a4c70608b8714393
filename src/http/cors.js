'use strict'

// Browser content needs CORS now that 2.0 dropped the alternate request syntax.
const ALLOW_HEADERS = 'Authorization, Content-Type, X-Experience-API-Version, If-Match, If-None-Match, Accept-Language, X-Experience-API-Hash'
const EXPOSE_HEADERS = 'ETag, Last-Modified, X-Experience-API-Version, X-Experience-API-Consistent-Through, Content-Type, X-Request-Id'

function cors (req, res, next) {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin || '*')
  res.setHeader('Access-Control-Expose-Headers', EXPOSE_HEADERS)
  if (req.headers.origin) res.setHeader('Vary', 'Origin')
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET, HEAD, PUT, POST, DELETE, OPTIONS')
    res.setHeader('Access-Control-Allow-Headers', ALLOW_HEADERS)
    res.setHeader('Access-Control-Allow-Credentials', 'true')
    res.setHeader('Access-Control-Max-Age', '86400')
    return res.status(204).end()
  }
  next()
}

module.exports = { cors }
