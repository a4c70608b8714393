'use strict'

// Credentials lifecycle under /admin/credentials:
//   GET    /admin/credentials          list (keys and scopes, never secrets)
//   POST   /admin/credentials          create; the answer shows the secret, once
//   PUT    /admin/credentials/:key     change scopes
//   DELETE /admin/credentials/:key     revoke
// Every worker applies a change within LRS_CREDENTIAL_POLL_MS (about
// half a second by default; credential-store.js). A credential belongs to
// one store: an `admin` credential sees and manages its own store's, one
// with `stores/admin` every store's (and makes them in any store).

const crypto = require('node:crypto')
const { errors } = require('../errors')
const { hashSecretAsync } = require('../auth/secrets')
const { KNOWN_SCOPES, allows } = require('../auth/scopes')
const { storeDirectory } = require('../stores/store-directory')
const { STORE_ID } = require('../stores/store-directory')
const { json, schema, response } = require('../http/openapi-parts')
const { KEY_PATTERN, SECRET_MIN_LENGTH, SECRET_MAX_LENGTH, SECRET_PATTERN } = require('../auth/credential-rules')

// The bodies, checked with ajv (route.js) and shown in /openapi.json.
const scopes = { type: 'array', minItems: 1, uniqueItems: true, items: { enum: [...KNOWN_SCOPES] } }
const CREATE_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['scopes'],
  properties: {
    key: { type: 'string', pattern: KEY_PATTERN },
    secret: { type: 'string', minLength: SECRET_MIN_LENGTH, maxLength: SECRET_MAX_LENGTH, pattern: SECRET_PATTERN },
    scopes,
    store: { type: 'string', pattern: STORE_ID, description: 'The store it belongs to (its id); the calling credential\'s when omitted. Another store needs `stores/admin`.' }
  }
}
const SCOPES_BODY = { type: 'object', additionalProperties: false, required: ['scopes'], properties: { scopes } }
const keyParam = { key: { schema: { type: 'string' }, description: 'The credential\'s key (its Basic auth user name).' } }

const isoOrNull = (date) => date ? new Date(date).toISOString() : null

// lastUsedAt: to within a minute (credential-store.js)
function publicView ({ key, scopes, createdAt, lastUsedAt }, storeId) {
  return { key, store: storeId, scopes, createdAt: isoOrNull(createdAt), lastUsedAt: isoOrNull(lastUsedAt) }
}

function credentialsRoutes ({ config, storage }) {
  const repo = storage.credentials
  const directory = storeDirectory(storage)
  const managesStores = (req) => allows(req.credential.scopes, 'stores')
  // The credentials the caller may see and change: its store's, or (with
  // stores/admin and no store chosen by X-LRS-Store) every store's.
  const visible = (req, credential) => (managesStores(req) && !req.credential.storeChosen) || (credential.store || 0) === (req.credential.store || 0)
  async function findVisible (req, key) {
    const found = (await repo.all()).find((c) => c.key === key)
    if (!found || !visible(req, found)) throw errors.NotFound(`no credential "${key}"`)
    return found
  }

  // The bootstrap credential is written from the configuration at every
  // start: a change here would silently come back.
  function assertNotBootstrap (key) {
    if (config.adminUser && key === config.adminUser) throw errors.CredentialManaged()
  }

  return [{
    method: 'get',
    path: '/credentials',
    operationId: 'listCredentials',
    summary: 'List credentials (never their secrets)',
    responses: { 200: response('The credentials.', { content: json(schema('CredentialList')) }) },
    async handler (req, res) {
      const [list, ids] = await Promise.all([repo.all(), directory.ids()])
      res.json({ credentials: list.filter((c) => visible(req, c)).map((c) => ({ ...publicView(c, ids.get(c.store || 0)), bootstrap: c.key === config.adminUser })) })
    }
  }, {
    method: 'post',
    path: '/credentials',
    operationId: 'createCredential',
    summary: 'Create a credential',
    description: 'The secret is shown in this answer only (it is stored hashed); key and secret are generated when omitted. ' +
      '409: LRS_ERR_CREDENTIAL_EXISTS for a key in use, LRS_ERR_CREDENTIAL_MANAGED for the bootstrap credential\'s (LRS_ADMIN_USER).',
    body: { kind: 'json', name: 'CredentialRequest', schema: CREATE_BODY },
    responses: { 201: response('Created.', { content: json(schema('NewCredential')) }) },
    errors: [errors.CredentialExists, errors.CredentialManaged, errors.NotFound, errors.Forbidden],
    async handler (req, res, { body }) {
      const key = body.key || crypto.randomBytes(12).toString('hex')
      assertNotBootstrap(key)
      const store = body.store === undefined ? (await directory.all()).find((s) => s.number === (req.credential.store || 0)) : await directory.byId(body.store)
      if (store.number !== (req.credential.store || 0) && !managesStores(req)) throw errors.NotFound(`no store "${body.store}"`)
      if (body.scopes.includes('stores/admin') && !managesStores(req)) throw errors.Forbidden('only a credential with stores/admin may give stores/admin')
      const secret = body.secret || crypto.randomBytes(24).toString('base64url')
      const created = await repo.create({ key, secretHash: await hashSecretAsync(secret), scopes: body.scopes, store: store.number })
      if (!created) throw errors.CredentialExists()
      req.log.info({ audit: 'credential-created', key, store: store.id, scopes: body.scopes }, 'credential created')
      res.status(201).json({ key, store: store.id, secret, scopes: body.scopes, createdAt: new Date().toISOString() })
    }
  }, {
    method: 'put',
    path: '/credentials/:key',
    operationId: 'setCredentialScopes',
    summary: 'Change a credential\'s scopes',
    description: 'Takes effect on every worker within LRS_CREDENTIAL_POLL_MS (500 ms by default). The bootstrap credential (LRS_ADMIN_USER) is 409 LRS_ERR_CREDENTIAL_MANAGED.',
    params: keyParam,
    body: { kind: 'json', name: 'CredentialScopes', schema: SCOPES_BODY },
    responses: { 200: response('Changed.', { content: json(schema('CredentialScopesResult')) }) },
    errors: [errors.NotFound, errors.CredentialManaged],
    async handler (req, res, { body }) {
      const { key } = req.params
      const { scopes } = body
      await findVisible(req, key)
      assertNotBootstrap(key)
      if (scopes.includes('stores/admin') && !managesStores(req)) throw errors.Forbidden('only a credential with stores/admin may give stores/admin')
      if (!await repo.setScopes(key, scopes)) throw errors.NotFound(`no credential "${key}"`)
      req.log.info({ audit: 'credential-scopes', key, scopes }, 'credential scopes changed')
      res.json({ key, scopes })
    }
  }, {
    method: 'delete',
    path: '/credentials/:key',
    operationId: 'revokeCredential',
    summary: 'Revoke a credential',
    description: 'It stops working on every worker within LRS_CREDENTIAL_POLL_MS (500 ms by default). The bootstrap credential is 409 LRS_ERR_CREDENTIAL_MANAGED.',
    params: keyParam,
    responses: { 204: response('Revoked.') },
    errors: [errors.NotFound, errors.CredentialManaged],
    async handler (req, res) {
      const { key } = req.params
      await findVisible(req, key)
      assertNotBootstrap(key)
      if (!await repo.remove(key)) throw errors.NotFound(`no credential "${key}"`)
      req.log.info({ audit: 'credential-revoked', key }, 'credential revoked')
      res.status(204).end()
    }
  }]
}

module.exports = { credentialsRoutes }
