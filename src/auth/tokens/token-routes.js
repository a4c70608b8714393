'use strict'

// POST /oauth/token: the OAuth 2.0 client credentials grant (RFC 6749
// 4.4), where a credential of this LRS is the client: its key and secret
// in HTTP Basic (client_secret_basic) or in the form (client_secret_post),
// checked exactly as Basic is on the APIs (the same failure limits). The
// answer is a token of lrs-issuer.js with the scopes asked for (all the
// credential's when none are). GET /oauth/jwks.json publishes the keys
// that check such tokens.
//
// Errors carry RFC 6749 5.2's `error` (invalid_client, invalid_scope, ...)
// beside the LRS's code and message.

const { errors } = require('../../errors')
const { response, json } = require('../../http/openapi-parts')
const { covers } = require('../scopes')

const FORM = {
  type: 'object',
  additionalProperties: false,
  required: ['grant_type'],
  properties: {
    grant_type: { type: 'string', maxLength: 64, description: '`client_credentials`, the only grant this endpoint gives.' },
    scope: { type: 'string', maxLength: 1024, description: 'Space-separated scopes, some of the credential\'s; absent: the token acts with the credential\'s scopes as they are when it is used.' },
    client_id: { type: 'string', maxLength: 256, description: 'The credential\'s key, when it is not sent with HTTP Basic.' },
    client_secret: { type: 'string', maxLength: 512, description: 'The credential\'s secret, with client_id.' }
  }
}

function oauthError (error, status, message, headers) {
  const make = status === 401 ? errors.Unauthorized : errors.BadRequest
  const err = make(message, headers ? { headers } : undefined)
  err.oauthError = error
  return err
}

function tokenRoutes ({ authenticator, lrsIssuer }) {
  async function token (req, res, { body }) {
    res.set('Cache-Control', 'no-store')
    if (body.grant_type !== 'client_credentials') throw oauthError('unsupported_grant_type', 400, 'only the client_credentials grant is given here')
    const header = clientHeader(req, body)
    let credential
    try {
      credential = await authenticator.credentialOf(header, req.ip, { basicEvenIfOff: true })
    } catch (err) {
      if (err.status !== 401) throw err
      throw oauthError('invalid_client', 401, 'the client\'s key and secret are not valid', { 'WWW-Authenticate': 'Basic realm="xAPI"' })
    }
    if (credential.viaToken) throw oauthError('invalid_client', 401, 'a token cannot buy a token: authenticate with the credential\'s key and secret', { 'WWW-Authenticate': 'Basic realm="xAPI"' })
    // no scope asked: the token acts with the credential's scopes as they
    // are when it is used (lrs-issuer.js)
    const asked = body.scope === undefined ? null : [...new Set(body.scope.split(' ').filter(Boolean))]
    const missing = (asked || []).filter((s) => !covers(credential.scopes, s))
    if (missing.length) throw oauthError('invalid_scope', 400, `the credential does not hold the scopes ${missing.join(', ').slice(0, 200)}`)
    if (asked && !asked.length) throw oauthError('invalid_scope', 400, 'a token needs a scope')
    const { token, expiresIn } = await lrsIssuer.issue(credential, asked)
    res.set('Pragma', 'no-cache')
    res.json({ access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: (asked || credential.scopes).join(' ') })
  }

  // RFC 6749 2.3.1: Basic, or the form's client_id and client_secret (not both)
  function clientHeader (req, body) {
    const inForm = body.client_id !== undefined || body.client_secret !== undefined
    const header = req.headers.authorization
    if (inForm && header) throw oauthError('invalid_request', 400, 'send the client\'s key and secret one way: HTTP Basic or the form')
    if (!inForm) return header
    if (body.client_id === undefined || body.client_secret === undefined) throw oauthError('invalid_request', 400, 'client_id and client_secret go together')
    if (body.client_id.includes(':')) throw oauthError('invalid_client', 401, 'the client\'s key and secret are not valid', { 'WWW-Authenticate': 'Basic realm="xAPI"' })
    return 'Basic ' + Buffer.from(`${body.client_id}:${body.client_secret}`).toString('base64')
  }

  return [
    {
      method: 'post',
      path: '/token',
      operationId: 'postOauthToken',
      summary: 'An access token for a credential (OAuth 2.0 client credentials)',
      description: 'The credential\'s key and secret authenticate the client (HTTP Basic, or `client_id` and `client_secret` in the form); the token carries the scopes asked for, some of the credential\'s, and acts in its store, as the credential does, for LRS_TOKEN_TTL_S. Send it as `Authorization: Bearer` to /xapi, /admin and /metrics. Refusals carry RFC 6749\'s `error` beside `code` and `message`.',
      scope: null,
      body: { kind: 'form', name: 'TokenRequest', schema: FORM },
      errors: [errors.BadRequest, errors.Unauthorized, errors.TooManyRequests],
      responses: {
        200: response('The token (RFC 6749 5.1).', {
          content: json({
            type: 'object',
            required: ['access_token', 'token_type', 'expires_in', 'scope'],
            properties: { access_token: { type: 'string' }, token_type: { const: 'Bearer' }, expires_in: { type: 'integer' }, scope: { type: 'string' } }
          })
        })
      },
      handler: token
    },
    {
      method: 'get',
      path: '/jwks.json',
      operationId: 'getOauthJwks',
      summary: 'The public keys of the tokens POST /oauth/token gives (JWKS)',
      description: 'The previous, current and next signing keys (ES256), so a relying party that checks the LRS\'s tokens itself sees a key before the first token it signs.',
      scope: null,
      responses: { 200: response('A JSON Web Key Set (RFC 7517).', { content: { 'application/jwk-set+json': { schema: { type: 'object', required: ['keys'], properties: { keys: { type: 'array', items: { type: 'object' } } } } } } }) },
      handler: async (req, res) => {
        res.set('Cache-Control', 'public, max-age=300')
        res.type('application/jwk-set+json').send(JSON.stringify(await lrsIssuer.jwks()))
      }
    }
  ]
}

module.exports = { tokenRoutes }
