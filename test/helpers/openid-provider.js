'use strict'

// A real OpenID Provider for the token tests: node-oidc-provider (an
// OpenID Certified implementation), on 127.0.0.1 with keys of its own that
// the test also holds, so it can forge what a hostile client would send.
//
// startProvider({ clients }) -> {
//   issuer, token({ clientId, scope }) (a real token from its token endpoint,
//   client credentials grant), keys (its private JWKs, the signing one
//   first), rotate() (a new signing key: the provider publishes and signs
//   with it from now on, the old one still published), stop(), start()
//   (serve again on the same port), fetches() (requests for its keys),
//   refusedPosts() (token requests refused for not using Basic) }
//
// Its access tokens are JWTs (RFC 9068) for the resource AUDIENCE with the
// scopes SCOPES, and carry `lrs_store` when the client's metadata names one.
//
// A client with `redirectUris` signs people in (authorization code flow,
// the provider's own login and consent pages, which take any login and
// password); `accounts` gives each login its claims ({ ada: { name,
// groups, lrs_store } }), released with the scopes `profile`, `groups`
// and `lrs` through userinfo.
//
// Clients authenticate at the token endpoint with HTTP Basic only
// (client_secret_basic, the method the LRS's docs promise): node-oidc-provider
// would also take the secret in the form (client_secret_post), which a
// stricter provider refuses, so this one refuses it too. `refusedPosts()`
// counts the token requests refused for it.

const http = require('node:http')
const crypto = require('node:crypto')
const { after } = require('node:test')

const AUDIENCE = 'https://lrs.example.org/xapi'
const PREFIX = 'lrs:'
const SCOPES = ['all', 'all/read', 'statements/write', 'statements/read', 'statements/read/mine', 'state', 'profile', 'define', 'admin', 'metrics', 'stores/admin'].map((s) => PREFIX + s)

async function newKey (kid) {
  const { generateKeyPair, exportJWK } = await import('jose')
  const { privateKey } = await generateKeyPair('RS256', { extractable: true })
  return { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' }
}

async function startProvider ({ clients = [], accounts = {} } = {}) {
  const { default: Provider } = await import('oidc-provider')
  let keys = [await newKey('k1')]
  let provider = null
  let fetches = 0
  let serving = true
  let refusedPosts = 0
  const server = http.createServer((req, res) => {
    if (!serving) { res.statusCode = 503; return res.end() }
    if (req.url.startsWith('/jwks')) fetches++
    if (req.method === 'POST' && req.url.split('?')[0] === '/token' && !/^Basic /i.test(req.headers.authorization || '')) {
      refusedPosts++
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="openid-provider"' })
      return res.end(JSON.stringify({ error: 'invalid_client', error_description: 'this provider takes client_secret_basic only' }))
    }
    provider.callback()(req, res)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${server.address().port}`

  function build () {
    provider = new Provider(issuer, {
      clients: clients.map((c) => c.redirectUris
        ? {
            client_id: c.clientId,
            client_secret: c.secret || 'provider-client-secret-' + c.clientId,
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'client_secret_basic',
            redirect_uris: c.redirectUris,
            post_logout_redirect_uris: c.postLogoutRedirectUris || []
          }
        : {
            client_id: c.clientId,
            client_secret: c.secret || 'provider-client-secret-' + c.clientId,
            grant_types: ['client_credentials'],
            redirect_uris: [],
            response_types: [],
            scope: SCOPES.join(' '),
            ...(c.store ? { lrs_store: c.store } : {})
          }),
      scopes: ['openid', 'profile', 'groups', 'lrs', ...SCOPES],
      claims: { openid: ['sub'], profile: ['name'], groups: ['groups'], lrs: ['lrs_store'] },
      findAccount: async (ctx, id) => ({ accountId: id, claims: async () => ({ sub: id, ...(accounts[id] || {}) }) }),
      cookies: { keys: ['openid-provider-test-cookie-key'] },
      extraClientMetadata: { properties: ['lrs_store'] },
      ttl: { ClientCredentials: 600, AccessToken: 600, IdToken: 3600, Interaction: 600, Session: 3600, Grant: 3600 },
      jwks: { keys },
      features: {
        devInteractions: { enabled: clients.some((c) => c.redirectUris) },
        // its own page (the provider's default fetches a web font from the internet)
        rpInitiatedLogout: { enabled: true, logoutSource: async (ctx, form) => { ctx.body = `<!DOCTYPE html><title>Sign out</title>${form}<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>` } },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => AUDIENCE,
          useGrantedResource: () => true,
          getResourceServerInfo: () => ({ scope: SCOPES.join(' '), audience: AUDIENCE, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } } })
        }
      },
      extraTokenClaims: async (ctx, token) => {
        const client = await ctx.oidc.provider.Client.find(token.clientId)
        return client && client.lrs_store ? { lrs_store: client.lrs_store } : undefined
      }
    })
    provider.on('server_error', (ctx, err) => console.error('openid provider:', err))
  }
  build()

  async function token ({ clientId, scope }) {
    const client = clients.find((c) => c.clientId === clientId)
    const secret = client.secret || 'provider-client-secret-' + clientId
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic ' + Buffer.from(`${clientId}:${secret}`).toString('base64') },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope, resource: AUDIENCE })
    })
    const body = await res.json()
    if (res.status !== 200) throw new Error(`the provider refused a token: ${res.status} ${JSON.stringify(body)}`)
    return body.access_token
  }

  const stop = () => { serving = false }
  // closeAllConnections: a browser's preconnected sockets would hold close() for a minute
  after(() => new Promise((resolve) => { server.close(resolve); server.closeAllConnections() }))
  server.unref()
  return {
    issuer,
    token,
    get keys () { return keys },
    async rotate () {
      keys = [await newKey('k' + crypto.randomBytes(4).toString('hex')), ...keys]
      build()
    },
    stop,
    start: () => { serving = true },
    fetches: () => fetches,
    refusedPosts: () => refusedPosts
  }
}

module.exports = { startProvider, AUDIENCE, PREFIX }
