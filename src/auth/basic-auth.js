'use strict'

const { errors } = require('../errors')
const { allows, scopesAllowing } = require('./scopes')
const { closeIfLargeBody } = require('../http/unread-body')
const { STORE_ID } = require('../stores/store-directory')

// HTTP Basic authentication (xAPI 1.0.3 Communication 4.0), done before the
// request body is read: a request without valid credentials gets 401 and
// never spends the in-flight byte budget (see unread-body.js for what
// becomes of the body).
//
// 1.0.3's alternate request syntax (`POST ?method=...`) may carry the
// credentials in its form body; such requests without an Authorization
// header are authenticated after their (small) body is read, by requireScope.
//
// `X-LRS-Store: <id>`: a credential with stores/admin acts in that store
// for the request, as a credential of it with the same scopes would (the
// console's store switcher). stores/admin may make such a credential
// anyway, so the header gives it nothing it could not have; any other
// credential is refused it (403). `storeNamed(id)`: the store, or NotFound.
const STORE_HEADER = 'x-lrs-store'
const STORE_ID_PATTERN = new RegExp(STORE_ID)

async function inChosenStore (req, credential, storeNamed) {
  const id = req.headers[STORE_HEADER]
  if (id === undefined) return credential
  if (!allows(credential.scopes, 'stores')) throw errors.Forbidden('X-LRS-Store needs the scope stores/admin')
  if (!STORE_ID_PATTERN.test(id)) throw errors.BadRequest('X-LRS-Store is not a store id')
  return { ...credential, store: (await storeNamed(id)).number }
}

function authenticate (credentials, { storeNamed }) {
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
    try {
      req.credential = await inChosenStore(req, credential, storeNamed)
    } catch (err) {
      return refuse(req, res, next, err)
    }
    next()
  }
}

function refuse (req, res, next, err) {
  closeIfLargeBody(req, res)
  if (err.status === 401) res.setHeader('WWW-Authenticate', 'Basic realm="xAPI"')
  next(err)
}

// The credential's scopes must allow `need` (Communication 4.2).
function requireScope (credentials, need, { storeNamed } = {}) {
  return async function checkScope (req, res, next) {
    if (!req.credential) {
      const credential = await credentials.authenticate(req.headers.authorization, req.ip)
      if (!credential) {
        res.setHeader('WWW-Authenticate', 'Basic realm="xAPI"')
        throw errors.Unauthorized()
      }
      req.credential = storeNamed ? await inChosenStore(req, credential, storeNamed) : credential
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
