'use strict'

const { errors } = require('../errors')
const { allows, scopesAllowing } = require('./scopes')
const { closeIfLargeBody } = require('../http/unread-body')

// HTTP Basic authentication (xAPI 1.0.3 Communication 4.0), done before the
// request body is read: a request without valid credentials gets 401 and
// never spends the in-flight byte budget (see unread-body.js for what
// becomes of the body).
//
// 1.0.3's alternate request syntax (`POST ?method=...`) may carry the
// credentials in its form body; such requests without an Authorization
// header are authenticated after their (small) body is read, by requireScope.
function authenticate (credentials) {
  return async function basicAuth (req, res, next) {
    if (req.headers.authorization === undefined && req.query.method !== undefined && req.method === 'POST') {
      req.authDeferred = true
      return next()
    }
    let credential
    try {
      credential = await credentials.authenticate(req.headers.authorization, req.ip)
    } catch (err) {
      return refuse(req, res, next, err)
    }
    if (!credential) return refuse(req, res, next, errors.Unauthorized())
    req.credential = credential
    next()
  }
}

function refuse (req, res, next, err) {
  closeIfLargeBody(req, res)
  if (err.status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="xAPI"')
  next(err)
}

// The credential's scopes must allow `need` (Communication 4.2).
function requireScope (credentials, need) {
  return async function checkScope (req, res, next) {
    if (!req.credential) {
      const credential = await credentials.authenticate(req.headers.authorization, req.ip)
      if (!credential) {
        res.setHeader('WWW-Authenticate', 'Basic realm="xAPI"')
        throw errors.Unauthorized()
      }
      req.credential = credential
    }
    if (!allows(req.credential.scopes, need)) {
      throw errors.Forbidden(`this request needs one of the scopes ${scopesAllowing(need).join(', ')}; the credential has ${req.credential.scopes.join(', ')}`)
    }
    next()
  }
}

// The authority Agent the LRS puts on statements stored with a credential.
function authorityFor (credential, config) {
  return { objectType: 'Agent', name: credential.key, account: { homePage: config.authorityHomePage, name: credential.key } }
}

module.exports = { authenticate, requireScope, authorityFor }
