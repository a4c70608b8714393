'use strict'

const { errors } = require('../errors')
const { BoundedMap } = require('../lib/bounded-map')

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

// Which version to report on a request without a valid header. 1.0.3 and
// 2.0 each want their own version echoed on that 400 (the conformance
// suites' XAPI-00331 accept only `1.0.3` resp. `2.0.0` there), so by
// default ("auto") a client gets the version it last spoke on this worker,
// remembered per credential (so the memory is as large as the credential
// list at most, and bounded all the same); a fixed version can be configured.
const DEFAULT_VERSION = '1.0.3'
const MAX_CLIENTS_REMEMBERED = 10000

function fallbackVersion ({ defaultXapiVersion }) {
  return defaultXapiVersion === 'auto' ? DEFAULT_VERSION : defaultXapiVersion
}

function versionMemory (setting) {
  if (setting !== 'auto') return { remember () {}, fallback: () => setting }
  const byCredential = new BoundedMap(MAX_CLIENTS_REMEMBERED)
  let last = DEFAULT_VERSION
  return {
    remember (req, version) {
      last = version
      if (req.credential && byCredential.get(req.credential.key) !== version) byCredential.set(req.credential.key, version)
    },
    fallback (req) {
      return (req.credential && byCredential.get(req.credential.key)) || last
    }
  }
}

// Sets the response header from the request header. Requests without a
// valid header are rejected (Communication 3.3.s3.b5/b6) with the
// default version in the response header.
function xapiVersion ({ defaultXapiVersion }) {
  const memory = versionMemory(defaultXapiVersion)
  return function negotiateVersion (req, res, next) {
    const version = negotiate(req.headers['x-experience-api-version'])
    if (version) memory.remember(req, version)
    req.xapiVersion = version || memory.fallback(req)
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

module.exports = { xapiVersion, negotiate, fallbackVersion }
