'use strict'

const { errors } = require('../errors')
const { allows } = require('./scopes')

// Express middleware: the request must carry valid HTTP Basic credentials
// (xAPI 1.0.3 Communication 4.0) whose scopes allow `need`.
function requireAuth (credentials, need) {
  return function basicAuth (req, res, next) {
    const credential = req.credential || credentials.authenticate(req.headers.authorization)
    if (!credential) {
      res.set('WWW-Authenticate', 'Basic realm="xAPI"')
      return next(errors.Unauthorized())
    }
    req.credential = credential
    if (need && !allows(credential.scopes, need)) return next(errors.Forbidden())
    next()
  }
}

// The authority Agent the LRS puts on statements stored with a credential.
function authorityFor (credential, config) {
  return { objectType: 'Agent', name: credential.key, account: { homePage: config.authorityHomePage, name: credential.key } }
}

module.exports = { requireAuth, authorityFor }
