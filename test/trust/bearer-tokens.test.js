'use strict'

// Issue 37: bearer tokens on every API, from an OpenID Provider the LRS is
// told to trust (a real one, test/helpers/openid-provider.js), checked as a
// hostile client would probe them.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const jose = require('jose')
const { startLrs, ADMIN } = require('../helpers/lrs')
const { startProvider, AUDIENCE, PREFIX } = require('../helpers/openid-provider')
const { statement } = require('../helpers/statements')

async function lrsTrusting (op, env = {}, options = {}) {
  // two audiences: a token needs one of them
  return startLrs({ LRS_OIDC_ISSUERS: op.issuer, LRS_OIDC_AUDIENCE: `https://another-name.example.org,${AUDIENCE}`, LRS_OIDC_SCOPE_PREFIX: PREFIX, ...env }, options)
}

const scopes = (...names) => names.map((n) => PREFIX + n).join(' ')

function withToken (lrs, token) {
  const headers = { Authorization: `Bearer ${token}` }
  return {
    xapi: (path, options = {}) => lrs.client(path, { ...options, auth: null, headers: { ...headers, ...options.headers } }),
    http: (path, options = {}) => lrs.http(path, { ...options, auth: null, headers: { ...headers, ...options.headers } })
  }
}

function assertInvalidToken (res, why) {
  assert.equal(res.status, 401, `${why}: ${res.status} ${res.text}`)
  assert.equal(res.json.code, 'LRS_ERR_AUTH_REQUIRED', why)
  assert.match(res.headers.get('www-authenticate'), /^Bearer realm="xAPI", error="invalid_token", error_description="[^"]+"$/, why)
}

test('a token of the OpenID Provider posts and reads statements: its authority is its client at the issuer, and statements/read/mine reads its own only', async () => {
  const op = await startProvider({ clients: [{ clientId: 'lms' }, { clientId: 'player' }] })
  const lrs = await lrsTrusting(op)
  const lms = withToken(lrs, await op.token({ clientId: 'lms', scope: scopes('statements/write', 'statements/read/mine') }))
  const player = withToken(lrs, await op.token({ clientId: 'player', scope: scopes('statements/write') }))

  const mine = await lms.xapi('/statements', { method: 'POST', body: statement() })
  assert.equal(mine.status, 200, mine.text)
  assert.equal((await player.xapi('/statements', { method: 'POST', body: statement() })).status, 200)
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement() })).status, 200) // Basic

  const read = await lms.xapi('/statements')
  assert.equal(read.status, 200, read.text)
  assert.deepEqual(read.json.statements.map((s) => s.id), mine.json)
  assert.deepEqual(read.json.statements[0].authority, { objectType: 'Agent', name: 'lms', account: { homePage: op.issuer, name: 'lms' } })
  const all = await lrs.client('/statements')
  assert.equal(all.json.statements.length, 3)
  assert.deepEqual(all.json.statements.map((s) => s.authority.account.name).sort(), [ADMIN.user, 'lms', 'player'])

  // write-only: no reads
  const refused = await player.xapi('/statements')
  assert.equal(refused.status, 403)
  assert.match(refused.headers.get('www-authenticate'), /^Bearer realm="xAPI", error="insufficient_scope", scope="[^"]*statements\/read[^"]*"$/)
})

test('forged, altered and misdirected tokens are all 401 invalid_token, the reason logged and the token never', async () => {
  const op = await startProvider({ clients: [{ clientId: 'lms' }] })
  const logLines = []
  const lrs = await lrsTrusting(op, { LRS_LOG_LEVEL: 'info' }, { logLines })
  const real = await op.token({ clientId: 'lms', scope: scopes('all') })
  assert.equal((await withToken(lrs, real).xapi('/statements')).status, 200)

  const providerKey = await jose.importJWK(op.keys[0], 'RS256')
  const attacker = await jose.generateKeyPair('RS256', { extractable: true })
  const attackerJwk = await jose.exportJWK(attacker.publicKey)
  const now = Math.floor(Date.now() / 1000)
  const claims = { iss: op.issuer, aud: AUDIENCE, sub: 'lms', client_id: 'lms', scope: scopes('all'), iat: now, exp: now + 600 }
  const sign = (c, header = { alg: 'RS256', kid: 'k1' }, key = providerKey) => new jose.SignJWT(c).setProtectedHeader(header).sign(key)
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url')
  const [h, p, s] = real.split('.')
  const publicPem = crypto.createPublicKey({ key: op.keys[0], format: 'jwk' }).export({ type: 'spki', format: 'pem' })

  // The provider's own key signs a well-formed token: it passes, so each
  // refusal below is for its own reason.
  assert.equal((await withToken(lrs, await sign(claims)).xapi('/statements')).status, 200)

  // a clock up to LRS_OIDC_CLOCK_TOLERANCE_S (30 s) ahead of the LRS's is allowed
  assert.equal((await withToken(lrs, await sign({ ...claims, iat: now + 20, exp: now + 620 })).xapi('/statements')).status, 200)

  const forged = {
    'expired': await sign({ ...claims, iat: now - 1200, exp: now - 120 }),
    'not valid yet': await sign({ ...claims, nbf: now + 600 }),
    'issued an hour from now': await sign({ ...claims, iat: now + 3600, exp: now + 4200 }),
    'no expiry': await sign((({ exp, ...rest }) => rest)(claims)),
    'another issuer': await sign({ ...claims, iss: 'https://evil.example.org' }),
    'another audience': await sign({ ...claims, aud: 'https://other.example.org' }),
    'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
    'alg none, signature kept': `${b64({ alg: 'none', kid: 'k1' })}.${p}.${s}`,
    'HS256 with the public key as secret': await sign(claims, { alg: 'HS256', kid: 'k1' }, Buffer.from(publicPem)),
    'an algorithm the issuer does not list (PS256)': await sign(claims, { alg: 'PS256', kid: 'k1' }, await jose.importJWK({ ...op.keys[0], alg: 'PS256' }, 'PS256')),
    'payload altered': `${h}.${b64({ ...jose.decodeJwt(real), scope: scopes('all', 'admin', 'stores/admin') })}.${s}`,
    'header altered': `${b64({ ...jose.decodeProtectedHeader(real), kid: 'k2' })}.${p}.${s}`,
    'signature of another token': `${h}.${p}.${(await sign({ ...claims, sub: 'x' })).split('.')[2]}`,
    'the issuer\'s key id, the attacker\'s key': await sign(claims, { alg: 'RS256', kid: 'k1' }, attacker.privateKey),
    'jku to the attacker\'s keys': await sign(claims, { alg: 'RS256', kid: 'attacker', jku: 'http://127.0.0.1:9/jwks' }, attacker.privateKey),
    'x5u to the attacker\'s certificate': await sign(claims, { alg: 'RS256', kid: 'attacker', x5u: 'http://127.0.0.1:9/cert.pem' }, attacker.privateKey),
    'the attacker\'s key embedded (jwk)': await sign(claims, { alg: 'RS256', jwk: attackerJwk }, attacker.privateKey),
    'kid path tricks': await sign(claims, { alg: 'RS256', kid: '../../../../../dev/null' }, attacker.privateKey),
    'kid injection': await sign(claims, { alg: 'RS256', kid: "k1' OR '1'='1" }, attacker.privateKey),
    'not a JWT': 'not-a-token',
    'three dots of nothing': '..',
    'a token over 8 KiB': 'a'.repeat(10000)
  }
  for (const [why, token] of Object.entries(forged)) {
    for (const path of ['/xapi/statements', '/admin/credentials', '/metrics']) {
      assertInvalidToken(await lrs.http(path, { auth: null, headers: { Authorization: `Bearer ${token}`, 'X-Experience-API-Version': '1.0.3' } }), `${why} on ${path}`)
    }
  }
  const future = await withToken(lrs, forged['issued an hour from now']).xapi('/statements')
  assert.match(future.headers.get('www-authenticate'), /error_description="the token was issued in the future"/)
  // a request with no credentials at all still asks for Basic
  const none = await lrs.client('/statements', { auth: null })
  assert.equal(none.status, 401)
  assert.equal(none.headers.get('www-authenticate'), 'Basic realm="xAPI"')

  const refusals = logLines.filter((l) => l.msg === 'bearer token refused')
  assert.ok(refusals.length >= Object.keys(forged).length, `${refusals.length} refusals logged`)
  assert.ok(refusals.every((l) => typeof l.reason === 'string' && l.reason.length > 0))
  const logged = JSON.stringify(logLines)
  for (const token of [real, ...Object.values(forged).filter((t) => t.length > 20)]) {
    for (const part of token.split('.').filter((x) => x.length > 20)) assert.ok(!logged.includes(part), 'a token (or part of one) is in the log')
  }
})

test('a key rotated at the provider is picked up without a restart; while the provider is down, tokens already trusted keep working', async () => {
  const op = await startProvider({ clients: [{ clientId: 'lms' }] })
  const lrs = await lrsTrusting(op, {}, { hooks: { jwksRefetchGapMs: 200 } })
  const before = await op.token({ clientId: 'lms', scope: scopes('all') })
  assert.equal((await withToken(lrs, before).xapi('/statements')).status, 200)
  const fetched = op.fetches()
  for (let i = 0; i < 20; i++) assert.equal((await withToken(lrs, before).xapi('/statements')).status, 200)
  assert.equal(op.fetches(), fetched, 'the keys are not fetched per request')

  await op.rotate()
  await new Promise((resolve) => setTimeout(resolve, 250))
  const after = await op.token({ clientId: 'lms', scope: scopes('all') })
  assert.notEqual(jose.decodeProtectedHeader(after).kid, jose.decodeProtectedHeader(before).kid)
  const res = await withToken(lrs, after).xapi('/statements')
  assert.equal(res.status, 200, res.text)
  assert.equal(op.fetches(), fetched + 1, 'an unknown key id had the keys fetched once')
  // a made-up key id does not have them fetched again at once
  const attacker = await jose.generateKeyPair('RS256')
  for (let i = 0; i < 5; i++) {
    const made = await new jose.SignJWT({ ...jose.decodeJwt(after), jti: String(i) }).setProtectedHeader({ alg: 'RS256', kid: `made-up-${i}` }).sign(attacker.privateKey)
    assertInvalidToken(await withToken(lrs, made).xapi('/statements'), 'made-up kid')
  }
  assert.ok(op.fetches() <= fetched + 2, `${op.fetches() - fetched} fetches for 5 made-up key ids`)

  op.stop()
  for (const token of [before, after]) assert.equal((await withToken(lrs, token).xapi('/statements')).status, 200)
  // a new token signed with a key already fetched is checked without the provider too
  const signed = await new jose.SignJWT({ ...jose.decodeJwt(after), jti: 'offline' }).setProtectedHeader({ alg: 'RS256', kid: op.keys[0].kid }).sign(await jose.importJWK(op.keys[0], 'RS256'))
  assert.equal((await withToken(lrs, signed).xapi('/statements')).status, 200)
})

test('a token\'s scopes limit exactly as a credential\'s do, on /xapi, /admin and /metrics', async () => {
  const op = await startProvider({ clients: [{ clientId: 'lms' }] })
  const lrs = await lrsTrusting(op)
  const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:scopes@example.com' }))
  const activity = encodeURIComponent('http://example.com/activities/scopes')
  const requests = [
    ['GET', '/xapi/statements'],
    ['POST', '/xapi/statements', statement()],
    ['GET', `/xapi/activities/state?activityId=${activity}&agent=${agent}&stateId=s`],
    ['PUT', `/xapi/activities/state?activityId=${activity}&agent=${agent}&stateId=s`, { a: 1 }],
    ['GET', `/xapi/activities/profile?activityId=${activity}`],
    ['GET', `/xapi/agents?agent=${agent}`],
    ['GET', `/xapi/activities?activityId=${activity}`],
    ['GET', '/admin/credentials'],
    ['GET', '/admin/stores'],
    ['GET', '/metrics']
  ]
  const sets = [['all'], ['all/read'], ['statements/write'], ['statements/read'], ['statements/read/mine'], ['state'], ['profile'], ['define'], ['admin'], ['metrics'], ['stores/admin'], ['statements/write', 'state']]
  for (const set of sets) {
    const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: set } })
    assert.equal(made.status, 201, made.text)
    const token = withToken(lrs, await op.token({ clientId: 'lms', scope: scopes(...set) }))
    for (const [method, path, body] of requests) {
      const options = { method, body: body && { ...body, ...(path.includes('statements') ? { id: crypto.randomUUID() } : {}) }, headers: { 'X-Experience-API-Version': '1.0.3' } }
      const basic = await lrs.http(path, { ...options, auth: [made.json.key, made.json.secret] })
      const bearer = await token.http(path, options)
      assert.equal(bearer.status, basic.status, `${set} ${method} ${path}: token ${bearer.status}, credential ${basic.status}`)
      assert.ok([200, 204, 404, 403].includes(bearer.status), `${set} ${method} ${path}: ${bearer.status} ${bearer.text}`)
    }
  }
})

test('a token acts in the store its claim names: nothing of another store, a store that does not exist is 401, a deleted store\'s tokens stop', async () => {
  const op = await startProvider({ clients: [{ clientId: 'acme-lms', store: 'acme' }, { clientId: 'home-lms' }, { clientId: 'ghost-lms', store: 'ghost' }] })
  const lrs = await lrsTrusting(op)
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme', name: 'ACME' } })).status, 201)
  const acme = withToken(lrs, await op.token({ clientId: 'acme-lms', scope: scopes('all') }))
  const home = withToken(lrs, await op.token({ clientId: 'home-lms', scope: scopes('all') }))
  const id = crypto.randomUUID()
  assert.equal((await acme.xapi('/statements', { method: 'POST', body: statement({ id }) })).status, 200)
  assert.equal((await home.xapi(`/statements?statementId=${id}`)).status, 404)
  assert.equal((await lrs.client(`/statements?statementId=${id}`)).status, 404)
  assert.equal((await acme.xapi(`/statements?statementId=${id}`)).status, 200)
  assert.equal((await home.xapi('/statements')).json.statements.length, 0)

  assertInvalidToken(await withToken(lrs, await op.token({ clientId: 'ghost-lms', scope: scopes('all') })).xapi('/statements'), 'a store that does not exist')

  // X-LRS-Store is for stores/admin only, tokens as credentials
  assert.equal((await home.xapi('/statements', { headers: { 'X-LRS-Store': 'acme' } })).status, 403)

  const deleted = await lrs.http('/admin/stores/acme?confirm=acme', { method: 'DELETE' })
  assert.equal(deleted.status, 202, deleted.text)
  let res
  for (let i = 0; i < 40; i++) {
    res = await acme.xapi('/statements')
    if (res.status === 401) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assertInvalidToken(res, 'a token of a deleted store')
})

test('POST /oauth/token: a credential\'s key and secret buy a token of its scopes, in its store; the token stops with the credential', async () => {
  const lrs = await startLrs({ LRS_TOKEN_TTL_S: '120' })
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme', name: 'ACME' } })).status, 201)
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['statements/write', 'statements/read', 'state'], store: 'acme' } })
  assert.equal(made.status, 201, made.text)
  const { key, secret } = made.json
  const form = (fields, headers = {}) => fetch(`${lrs.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(fields) })
  const basicOf = (k, s) => ({ authorization: 'Basic ' + Buffer.from(`${k}:${s}`).toString('base64') })

  const res = await form({ grant_type: 'client_credentials', scope: 'statements/write statements/read/mine' }, basicOf(key, secret))
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('cache-control'), 'no-store')
  const body = await res.json()
  assert.equal(body.token_type, 'Bearer')
  assert.equal(body.expires_in, 120)
  assert.equal(body.scope, 'statements/write statements/read/mine')
  const claims = jose.decodeJwt(body.access_token)
  assert.equal(claims.sub, key)
  assert.equal(claims.exp - claims.iat, 120)

  // published keys check it (a relying party of its own)
  const jwks = await (await fetch(`${lrs.url}/oauth/jwks.json`)).json()
  assert.equal(jwks.keys.length, 3)
  assert.ok(jwks.keys.every((k) => k.d === undefined && k.kty === 'EC'), 'no private part published')
  await jose.jwtVerify(body.access_token, jose.createLocalJWKSet(jwks), { issuer: lrs.config.authorityHomePage, audience: lrs.config.authorityHomePage })

  const token = withToken(lrs, body.access_token)
  const posted = await token.xapi('/statements', { method: 'POST', body: statement() })
  assert.equal(posted.status, 200, posted.text)
  const read = await token.xapi('/statements')
  assert.deepEqual(read.json.statements.map((s) => s.id), posted.json)
  // the same authority as the credential's own: read/mine sees what Basic posted too
  assert.deepEqual(read.json.statements[0].authority, { objectType: 'Agent', name: key, account: { homePage: lrs.config.authorityHomePage, name: key } })
  assert.equal((await lrs.client(`/statements?statementId=${posted.json[0]}`)).status, 404, 'in the credential\'s store, not the default one')
  assert.equal((await token.xapi(`/activities/state?activityId=${encodeURIComponent('http://e.com/a')}&agent=${encodeURIComponent('{"mbox":"mailto:a@e.com"}')}&stateId=s`)).status, 403, 'a scope not asked for')

  // form authentication, every scope of the credential
  const byForm = await form({ grant_type: 'client_credentials', client_id: key, client_secret: secret })
  assert.equal(byForm.status, 200)
  const formToken = await byForm.json()
  assert.equal(formToken.scope, 'statements/write statements/read state')
  assert.equal(jose.decodeJwt(formToken.access_token).scope, undefined, 'no scope asked: the credential\'s, whatever they are when used')
  // it follows a change of the credential's scopes
  assert.equal((await lrs.http(`/admin/credentials/${key}`, { method: 'PUT', body: { scopes: ['statements/write'] } })).status, 200)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  assert.equal((await withToken(lrs, formToken.access_token).xapi('/statements')).status, 403)
  assert.equal((await token.xapi('/statements')).status, 403, 'a scope the credential lost')
  assert.equal((await lrs.http(`/admin/credentials/${key}`, { method: 'PUT', body: { scopes: ['statements/write', 'statements/read', 'state'] } })).status, 200)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  assert.equal((await withToken(lrs, formToken.access_token).xapi('/statements')).status, 200, 'and regains it')

  // a second worker on the same store takes the token (shared keys)
  const second = await startLrs({ ...lrs.storeEnv })
  assert.equal((await withToken(second, body.access_token).xapi('/statements')).status, 200)

  const refusals = [
    [{ grant_type: 'client_credentials', scope: 'admin' }, basicOf(key, secret), 400, 'invalid_scope'],
    [{ grant_type: 'client_credentials', scope: 'all' }, basicOf(key, secret), 400, 'invalid_scope'],
    [{ grant_type: 'client_credentials', scope: 'nonsense' }, basicOf(key, secret), 400, 'invalid_scope'],
    [{ grant_type: 'password', username: 'x', password: 'y' }, basicOf(key, secret), 400, null],
    [{ grant_type: 'authorization_code' }, basicOf(key, secret), 400, 'unsupported_grant_type'],
    [{ grant_type: 'client_credentials' }, basicOf(key, 'wrong-secret-0000000'), 401, 'invalid_client'],
    [{ grant_type: 'client_credentials' }, {}, 401, 'invalid_client'],
    [{ grant_type: 'client_credentials', client_id: key }, {}, 400, 'invalid_request'],
    [{ grant_type: 'client_credentials', client_id: key, client_secret: secret }, basicOf(key, secret), 400, 'invalid_request'],
    [{ grant_type: 'client_credentials' }, { authorization: `Bearer ${body.access_token}` }, 401, 'invalid_client']
  ]
  for (const [fields, headers, status, error] of refusals) {
    const r = await form(fields, headers)
    const j = await r.json()
    assert.equal(r.status, status, `${JSON.stringify(fields)}: ${JSON.stringify(j)}`)
    if (error) assert.equal(j.error, error, JSON.stringify(j))
    assert.equal(typeof j.code, 'string')
    assert.ok(!JSON.stringify(j).includes(secret))
  }
  const json = await fetch(`${lrs.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json', ...basicOf(key, secret) }, body: JSON.stringify({ grant_type: 'client_credentials' }) })
  assert.equal(json.status, 400, 'the grant is a form, not JSON')

  // revoked: the token stops on every worker
  assert.equal((await lrs.http(`/admin/credentials/${key}`, { method: 'DELETE' })).status, 204)
  for (const server of [lrs, second]) {
    let r
    for (let i = 0; i < 40; i++) {
      r = await withToken(server, body.access_token).xapi('/statements')
      if (r.status === 401) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assertInvalidToken(r, 'a revoked credential\'s token')
  }
})

test('the LRS\'s own tokens: forged key ids, its key used for another issuer, a token past its lifetime and one issued in the future are 401', async () => {
  const lrs = await startLrs()
  const real = await lrs.token()
  const claims = jose.decodeJwt(real)
  const attacker = await jose.generateKeyPair('ES256')
  const kid = jose.decodeProtectedHeader(real).kid
  const period = Number(kid.slice(4))
  const sign = (c, header) => new jose.SignJWT(c).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', ...header }).sign(attacker.privateKey)
  const forged = {
    'its key id, another key': await sign(claims, { kid }),
    'a key id long gone': await sign(claims, { kid: `lrs-${period - 50}` }),
    'a key id to come': await sign(claims, { kid: `lrs-${period + 50}` }),
    'a key id that is no period': await sign(claims, { kid: 'lrs-../../x' }),
    'no typ': await new jose.SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid }).sign(attacker.privateKey),
    'the attacker\'s key embedded': await sign(claims, { kid, jwk: await jose.exportJWK(attacker.publicKey) })
  }
  // the LRS's own key (as the database keeps it) makes a token that passes,
  // and one past its lifetime that does not
  const own = await jose.importJWK(JSON.parse(await lrs.storage.settings.getOrCreate(`token-signing-key:${period}`, 'unused')), 'ES256')
  const ownSign = (c) => new jose.SignJWT(c).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid }).sign(own)
  const now = Math.floor(Date.now() / 1000)
  assert.equal((await withToken(lrs, await ownSign({ ...claims, jti: 'fresh' })).xapi('/statements')).status, 200)
  forged['past its lifetime'] = await ownSign({ ...claims, iat: now - 7200, exp: now - 3600 })
  // iat within LRS_OIDC_CLOCK_TOLERANCE_S (30 s) of the LRS's clock passes; an hour ahead does not
  assert.equal((await withToken(lrs, await ownSign({ ...claims, iat: now + 20, exp: now + 20 + 3600, jti: 'a clock 20 s ahead' })).xapi('/statements')).status, 200)
  forged['issued an hour from now'] = await ownSign({ ...claims, iat: now + 3600, exp: now + 7200 })
  forged['for another audience'] = await ownSign({ ...claims, aud: 'https://other.example.org' })
  forged['naming a credential that does not exist'] = await ownSign({ ...claims, sub: 'nobody' })
  for (const [why, token] of Object.entries(forged)) assertInvalidToken(await withToken(lrs, token).xapi('/statements'), why)
  assert.equal((await withToken(lrs, real).xapi('/statements')).status, 200)
})

test('the LRS\'s signing key changes every LRS_TOKEN_KEY_ROTATION_S: a token signed before a change works after it until it expires, and the keys published move on', async () => {
  let offset = 0
  const rotationMs = 600 * 1000
  const lrs = await startLrs({ LRS_TOKEN_TTL_S: '600', LRS_TOKEN_KEY_ROTATION_S: '600' }, { hooks: { now: () => Date.now() + offset } })
  const tokenNow = () => lrs.token(undefined, { scope: 'all' })
  const kids = async () => (await (await fetch(`${lrs.url}/oauth/jwks.json`)).json()).keys.map((k) => k.kid)
  const first = await tokenNow()
  const period = Math.floor(Date.now() / rotationMs)
  assert.equal(jose.decodeProtectedHeader(first).kid, `lrs-${period}`)
  assert.deepEqual(await kids(), [`lrs-${period - 1}`, `lrs-${period}`, `lrs-${period + 1}`])

  // just past the next change: a new key signs, the first token still works
  offset = (period + 1) * rotationMs - Date.now() + 1000
  const second = await tokenNow()
  assert.equal(jose.decodeProtectedHeader(second).kid, `lrs-${period + 1}`)
  assert.deepEqual(await kids(), [`lrs-${period}`, `lrs-${period + 1}`, `lrs-${period + 2}`])
  assert.equal((await withToken(lrs, second).xapi('/statements')).status, 200)
  assert.equal((await withToken(lrs, first).xapi('/statements')).status, 200)

  // a rotation later the first is past its lifetime, and its key is
  // neither accepted nor published
  offset += rotationMs
  assertInvalidToken(await withToken(lrs, first).xapi('/statements'), 'a token past its lifetime')
  assert.ok(!(await kids()).includes(`lrs-${period}`))
  assert.equal((await withToken(lrs, second).xapi('/statements')).status, 200)
})

test('LRS_BASIC_AUTH=off: Basic is refused with a Bearer challenge, tokens work, and /oauth/token still takes a key and secret', async () => {
  const lrs = await startLrs({ LRS_BASIC_AUTH: 'off' })
  const basic = await lrs.client('/statements')
  assert.equal(basic.status, 401)
  assert.equal(basic.headers.get('www-authenticate'), 'Bearer realm="xAPI"')
  assert.match(basic.json.message, /LRS_BASIC_AUTH=off/)
  assert.equal((await lrs.http('/admin/credentials')).status, 401)
  const token = withToken(lrs, await lrs.token()) // the token endpoint still takes a key and secret
  assert.equal((await token.xapi('/statements')).status, 200)
  assert.equal((await token.http('/admin/credentials')).status, 200)
  assert.equal((await token.http('/metrics')).status, 200)
})
