'use strict'

// OAuth 2.0 client credentials (RFC 6749, 4.4) for an LRS target: a token
// fetched from the target's token endpoint, the client's id and secret sent
// as HTTP Basic (2.3.1: each form-encoded first), kept per worker until
// REFRESH_BEFORE_MS before it expires, and fetched again when the target
// answers 401 (a token revoked early). One fetch at a time per upstream:
// a batch waiting for a token does not start another fetch.

const REFRESH_BEFORE_MS = 30000
// a token whose answer gives no lifetime is kept this long
const DEFAULT_TTL_S = 300
const MAX_TTL_S = 86400

class TokenUnavailable extends Error {}

const formEncode = (value) => encodeURIComponent(value).replace(/%20/g, '+')

function oauthTokens ({ timeoutMs, hosts }) {
  const cache = new Map() // upstream id -> { key, token, expiresAt } | { key, pending }

  async function fetchToken (oauth) {
    const forbidden = await hosts.problem(oauth.tokenUrl)
    if (forbidden) throw new TokenUnavailable(`token endpoint forbidden: ${forbidden}`)
    const basic = Buffer.from(`${formEncode(oauth.clientId)}:${formEncode(oauth.clientSecret)}`).toString('base64')
    const body = new URLSearchParams({ grant_type: 'client_credentials', ...(oauth.scope && { scope: oauth.scope }) })
    let res
    try {
      res = await fetch(oauth.tokenUrl, { method: 'POST', headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' })
    } catch (err) {
      throw new TokenUnavailable('token endpoint unreachable', { cause: err })
    }
    const text = await res.text()
    if (!res.ok) throw new TokenUnavailable(`token endpoint answered ${res.status}`)
    let answer
    try {
      answer = JSON.parse(text)
    } catch {
      throw new TokenUnavailable('token endpoint answered no JSON')
    }
    if (!answer || typeof answer.access_token !== 'string' || !answer.access_token) throw new TokenUnavailable('token endpoint answered no access_token')
    if (answer.token_type && String(answer.token_type).toLowerCase() !== 'bearer') throw new TokenUnavailable(`token endpoint answered token_type ${String(answer.token_type).slice(0, 40)}, not Bearer`)
    const ttl = Number.isFinite(answer.expires_in) && answer.expires_in > 0 ? Math.min(answer.expires_in, MAX_TTL_S) : DEFAULT_TTL_S
    return { token: answer.access_token, expiresAt: Date.now() + ttl * 1000 }
  }

  return {
    // The Authorization header for `upstream` (which has `oauth`); a token
    // for another configuration of it (changed client or secret) is not used.
    async authorization (upstream) {
      const key = `${upstream.fingerprint} ${upstream.oauth.tokenUrl} ${upstream.oauth.clientId}`
      let entry = cache.get(upstream.id)
      if (entry && entry.key === key && entry.token && entry.expiresAt - REFRESH_BEFORE_MS > Date.now()) return `Bearer ${entry.token}`
      if (!entry || entry.key !== key || !entry.pending) {
        const pending = fetchToken(upstream.oauth)
        entry = { key, pending }
        cache.set(upstream.id, entry)
        pending.then((got) => { if (cache.get(upstream.id) === entry) cache.set(upstream.id, { key, ...got }) }, () => { if (cache.get(upstream.id) === entry) cache.delete(upstream.id) })
      }
      const got = await entry.pending
      return `Bearer ${got.token}`
    },
    // The target refused the token (401): the next batch fetches another.
    forget (upstream) {
      const entry = cache.get(upstream.id)
      if (entry && entry.token) cache.delete(upstream.id)
    }
  }
}

module.exports = { oauthTokens, TokenUnavailable }
