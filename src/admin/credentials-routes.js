'use strict'

// Credentials lifecycle under /admin/credentials:
//   GET    /admin/credentials          list (keys and scopes, never secrets)
//   POST   /admin/credentials          create; the answer shows the secret, once
//   PUT    /admin/credentials/:key     change scopes
//   DELETE /admin/credentials/:key     revoke
// Every worker applies a change within LRS_CREDENTIAL_POLL_MS (about
// half a second by default; credential-store.js).

const crypto = require('node:crypto')
const express = require('express')
const { errors } = require('../errors')
const { hashSecretAsync } = require('../auth/secrets')
const { KNOWN_SCOPES } = require('../auth/scopes')
const { KEY_PATTERN, SECRET_MIN_LENGTH, SECRET_MAX_LENGTH, SECRET_PATTERN } = require('../auth/credential-rules')
const { checkBody } = require('./admin-bodies')

const scopes = { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...KNOWN_SCOPES] } }
const createBody = checkBody({
  type: 'object',
  additionalProperties: false,
  required: ['scopes'],
  properties: {
    key: { type: 'string', pattern: KEY_PATTERN },
    secret: { type: 'string', minLength: SECRET_MIN_LENGTH, maxLength: SECRET_MAX_LENGTH, pattern: SECRET_PATTERN },
    scopes
  }
})
const scopesBody = checkBody({ type: 'object', additionalProperties: false, required: ['scopes'], properties: { scopes } })

function publicView ({ key, scopes, createdAt }) {
  return { key, scopes, createdAt: createdAt ? new Date(createdAt).toISOString() : null }
}

function credentialsRoutes ({ config, storage }) {
  const repo = storage.credentials
  const router = express.Router({ caseSensitive: true })

  // The bootstrap credential is written from the configuration at every
  // start: a change here would silently come back.
  function assertNotBootstrap (key) {
    if (config.adminUser && key === config.adminUser) throw errors.CredentialManaged()
  }

  router.get('/credentials', async (req, res) => {
    const list = await repo.all()
    res.json({ credentials: list.map((c) => ({ ...publicView(c), bootstrap: c.key === config.adminUser })) })
  })

  router.post('/credentials', async (req, res) => {
    const body = createBody(req.body)
    const key = body.key || crypto.randomBytes(12).toString('hex')
    assertNotBootstrap(key)
    const secret = body.secret || crypto.randomBytes(24).toString('base64url')
    const created = await repo.create({ key, secretHash: await hashSecretAsync(secret), scopes: body.scopes })
    if (!created) throw errors.CredentialExists()
    req.log.info({ audit: 'credential-created', key, scopes: body.scopes }, 'credential created')
    res.status(201).json({ key, secret, scopes: body.scopes, createdAt: new Date().toISOString() })
  })

  router.put('/credentials/:key', async (req, res) => {
    const { key } = req.params
    assertNotBootstrap(key)
    const { scopes } = scopesBody(req.body)
    if (!await repo.setScopes(key, scopes)) throw errors.NotFound(`no credential "${key}"`)
    req.log.info({ audit: 'credential-scopes', key, scopes }, 'credential scopes changed')
    res.json({ key, scopes })
  })

  router.delete('/credentials/:key', async (req, res) => {
    const { key } = req.params
    assertNotBootstrap(key)
    if (!await repo.remove(key)) throw errors.NotFound(`no credential "${key}"`)
    req.log.info({ audit: 'credential-revoked', key }, 'credential revoked')
    res.status(204).end()
  })

  return router
}

module.exports = { credentialsRoutes }
