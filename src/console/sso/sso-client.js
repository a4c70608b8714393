'use strict'

// The console as a client of LRS_CONSOLE_OIDC_ISSUER, through openid-client
// (OpenID Certified relying party): the authorization code flow with PKCE
// (S256), state and nonce, the ID token checked by the library, and
// RP-initiated logout where the issuer offers it. A confidential client
// authenticates at the token endpoint with client_secret_basic, as the
// configuration promises (openid-client's default would be
// client_secret_post, which a provider that registered Basic refuses).

const oidc = require('openid-client')

const CALLBACK_PATH = '/console/sso/callback'

function createSsoClient ({ config, logger }) {
  const redirectUri = config.publicUrl + CALLBACK_PATH
  let discovered = null

  // Discovery once, kept; a failure is not kept (the next sign-in tries again).
  function configuration () {
    if (!discovered) {
      const insecure = new URL(config.consoleOidcIssuer).protocol === 'http:' // localhost only (config.js)
      discovered = oidc.discovery(
        new URL(config.consoleOidcIssuer),
        config.consoleOidcClientId,
        config.consoleOidcClientSecret || undefined,
        config.consoleOidcClientSecret ? oidc.ClientSecretBasic(config.consoleOidcClientSecret) : oidc.None(),
        insecure ? { execute: [oidc.allowInsecureRequests] } : undefined
      )
      discovered.catch((err) => {
        logger.warn({ err, issuer: config.consoleOidcIssuer }, 'console sign-in: discovery failed')
        discovered = null
      })
    }
    return discovered
  }

  // Where to send the browser, and what to remember until it comes back.
  async function start () {
    const conf = await configuration()
    const verifier = oidc.randomPKCECodeVerifier()
    const login = { verifier, state: oidc.randomState(), nonce: oidc.randomNonce() }
    const url = oidc.buildAuthorizationUrl(conf, {
      redirect_uri: redirectUri,
      scope: config.consoleOidcScopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state: login.state,
      nonce: login.nonce
    })
    return { url: url.href, login }
  }

  // The person who signed in: their claims (the roles claim from userinfo
  // when the ID token lacks it) and ID token. `query`: the callback's.
  async function finish (query, login) {
    const conf = await configuration()
    const current = new URL(redirectUri)
    current.search = query
    const tokens = await oidc.authorizationCodeGrant(conf, current, {
      pkceCodeVerifier: login.verifier,
      expectedState: login.state,
      expectedNonce: login.nonce,
      idTokenExpected: true
    })
    const claims = { ...tokens.claims() }
    if (claims[config.consoleOidcRolesClaim] === undefined && conf.serverMetadata().userinfo_endpoint) {
      const info = await oidc.fetchUserInfo(conf, tokens.access_token, claims.sub)
      if (info[config.consoleOidcRolesClaim] !== undefined) claims[config.consoleOidcRolesClaim] = info[config.consoleOidcRolesClaim]
      for (const name of ['name', 'email', config.oidcStoreClaim]) if (claims[name] === undefined && info[name] !== undefined) claims[name] = info[name]
    }
    return { claims, idToken: tokens.id_token }
  }

  // The issuer's end-session URL (the browser goes there after signing out
  // here), or null where it offers none.
  async function endSessionUrl (idToken) {
    const conf = await configuration()
    if (!conf.serverMetadata().end_session_endpoint) return null
    return oidc.buildEndSessionUrl(conf, { id_token_hint: idToken, post_logout_redirect_uri: config.publicUrl + '/console/' }).href
  }

  return { start, finish, endSessionUrl }
}

module.exports = { createSsoClient, CALLBACK_PATH }
