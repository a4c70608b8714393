'use strict'

const { errors } = require('../errors')

// xAPI version negotiation, per request. 1.0.x requests are served as 1.0.3
// and 2.0.x requests as 2.0.0 (one implementation of each behind one
// endpoint, as "routed to a conformant implementation of that version",
// Communication 3.3). The negotiated version is echoed on the response.
const VERSION_PATTERNS = [
  [/^1\.0(\.[0-9]+)?$/, '1.0.3'],
  [/^2\.0(\.[0-9]+)?$/, '2.0.0']
]

function negotiate (value) {
  if (typeof value !== 'string') return null
  const trimmed = value.trim()
  for (const [pattern, version] of VERSION_PATTERNS) if (pattern.test(trimmed)) return version
  return null
}

// Sets the response header from the request header. Requests without a
// valid header are rejected (Communication 3.3.s3.b5/b6) with the
// configured default version in the response header.
function xapiVersion ({ defaultXapiVersion }) {
  return function negotiateVersion (req, res, next) {
    const version = negotiate(req.headers['x-experience-api-version'])
    req.xapiVersion = version || defaultXapiVersion
    res.setHeader('X-Experience-API-Version', req.xapiVersion)
    if (!version) {
      const sent = req.headers['x-experience-api-version']
      return next(errors.InvalidVersionHeader(sent === undefined
        ? 'X-Experience-API-Version header is required (supported: 1.0.x, 2.0.x)'
        : `X-Experience-API-Version "${sent}" is not supported (supported: 1.0.x, 2.0.x)`))
    }
    next()
  }
}

module.exports = { xapiVersion, negotiate }
