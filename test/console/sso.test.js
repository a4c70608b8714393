'use strict'

// Issue 37: single sign-on for the console, against a real OpenID Provider
// (test/helpers/openid-provider.js, its own login and consent pages),
// driven in Chromium; the session cookie and CSRF checked from outside.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { startLrs } = require('../helpers/lrs')
const { startProvider } = require('../helpers/openid-provider')
const { statement } = require('../helpers/statements')
const { browserSkip, launchBrowser, watchedPage } = require('../helpers/browser')
const { freePort } = require('../../tools/free-port')

const ACCOUNTS = {
  ada: { name: 'Ada Lovelace', groups: ['lrs-admins', 'staff'] },
  bob: { name: 'Bob', groups: ['staff'] },
  carol: { name: 'Carol', groups: ['acme-auditors'], lrs_store: 'acme' }
}

async function ssoLrs (env = {}, options = {}) {
  const port = await freePort()
  const publicUrl = `http://127.0.0.1:${port}`
  const op = await startProvider({
    clients: [{ clientId: 'lrs-console', redirectUris: [`${publicUrl}/console/sso/callback`], postLogoutRedirectUris: [`${publicUrl}/console/`] }],
    accounts: ACCOUNTS
  })
  const ssoEnv = {
    LRS_PUBLIC_URL: publicUrl,
    LRS_CONSOLE_OIDC_ISSUER: op.issuer,
    LRS_CONSOLE_OIDC_CLIENT_ID: 'lrs-console',
    LRS_CONSOLE_OIDC_CLIENT_SECRET: 'provider-client-secret-lrs-console',
    LRS_CONSOLE_OIDC_SCOPES: 'openid profile groups lrs',
    LRS_CONSOLE_OIDC_ROLES: 'lrs-admins=admin all stores/admin;acme-auditors=admin all/read',
    ...env
  }
  const lrs = await startLrs({ PORT: String(port), ...ssoEnv }, options)
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme', name: 'ACME Corp' } })).status, 201)
  return { op, lrs, ssoEnv }
}

// The provider's own pages: any login and password, then consent.
async function signInAtProvider (page, login) {
  await page.waitForSelector('input[name=login]')
  await page.type('input[name=login]', login)
  await page.type('input[name=password]', 'any-password')
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')])
  if (await page.$('button[type=submit]') && !page.url().includes('/console/')) {
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]) // consent
  }
}

const cookieHeader = (cookie) => `${cookie.name}=${cookie.value}`

// `login` signed in through the console in a browser context of its own:
// the console's sign-in state (store, scopes, CSRF token) and the
// session's Cookie header.
async function signedInSession (browser, lrs, login) {
  const context = await browser.createBrowserContext()
  const page = await context.newPage()
  await page.goto(lrs.url + '/console/sso/start')
  await signInAtProvider(page, login)
  await page.waitForSelector('#nav:not([hidden])')
  const state = await page.evaluate(async () => (await fetch('/console/sso', { credentials: 'same-origin' })).json())
  const cookie = cookieHeader((await page.cookies(lrs.url)).find((c) => c.name === '__Host-lrs-console'))
  return { state, cookie, page }
}

test('console single sign-on: a person of an allowed group signs in at the provider, the session is an HttpOnly Secure SameSite=Strict cookie, CSRF is required, sign-out ends it everywhere', { skip: browserSkip() }, async (t) => {
  const { op, lrs, ssoEnv } = await ssoLrs()
  const second = await startLrs({ ...ssoEnv, ...lrs.storeEnv }) // another worker of the same LRS
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement() })).status, 200)
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const { page, seen } = await watchedPage(browser)

  await page.goto(lrs.url + '/console/')
  await page.waitForSelector('#sso:not([hidden])')
  await Promise.all([page.waitForNavigation(), page.click('#sso a')])
  await signInAtProvider(page, 'ada')
  await page.waitForSelector('#nav:not([hidden])')
  assert.equal(await page.$eval('#who-key', (e) => e.textContent), 'Signed in as Ada Lovelace')
  // the code was redeemed with client_secret_basic, as docs/configuration.md
  // says (the provider takes nothing else: test/helpers/openid-provider.js)
  assert.equal(op.refusedPosts(), 0)
  await page.waitForSelector('#store-choice:not([hidden])') // stores/admin from the group

  // the cookie, and nothing the page's script can read
  const cookies = await page.cookies(lrs.url)
  const session = cookies.find((c) => c.name === '__Host-lrs-console')
  assert.ok(session, JSON.stringify(cookies.map((c) => c.name)))
  assert.equal(session.httpOnly, true)
  assert.equal(session.secure, true)
  assert.equal(session.sameSite, 'Strict')
  assert.equal(session.path, '/')
  assert.ok(!cookies.some((c) => c.name === '__Host-lrs-sso-login'), 'the sign-in\'s own cookie is gone')
  assert.deepEqual(await page.evaluate(() => [document.cookie, localStorage.length, sessionStorage.length]), ['', 0, 0])

  // the console's pages work with it
  await page.click('#nav a[href="#/statements"]')
  await page.waitForSelector('tbody tr')
  await page.click('#nav a[href="#/credentials"]')
  await page.waitForSelector('tr[data-key]')

  // from outside: the cookie alone is refused; with the CSRF token it works
  const state = await page.evaluate(async () => (await fetch('/console/sso', { credentials: 'same-origin' })).json())
  assert.equal(state.signedIn, true)
  assert.deepEqual(state.scopes, ['admin', 'all', 'stores/admin'])
  const asCookie = (path, headers = {}) => fetch(lrs.url + path, { headers: { cookie: cookieHeader(session), 'X-Experience-API-Version': '1.0.3', ...headers } })
  assert.equal((await asCookie('/admin/credentials')).status, 403)
  assert.equal((await asCookie('/xapi/statements')).status, 403)
  assert.equal((await asCookie('/admin/credentials', { 'X-CSRF-Token': 'x'.repeat(43) })).status, 403)
  assert.equal((await asCookie('/admin/credentials', { 'X-CSRF-Token': state.csrf })).status, 200)
  const onSecond = () => fetch(second.url + '/admin/credentials', { headers: { cookie: cookieHeader(session), 'X-CSRF-Token': state.csrf } }).then((r) => r.status)
  assert.equal(await onSecond(), 200, 'the session is the LRS\'s, not one worker\'s')
  const posted = await fetch(lrs.url + '/xapi/statements', { method: 'POST', headers: { cookie: cookieHeader(session), 'X-CSRF-Token': state.csrf, 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' }, body: JSON.stringify(statement()) })
  assert.equal(posted.status, 200)
  const [id] = await posted.json()
  const stored = await lrs.client(`/statements?statementId=${id}`)
  assert.deepEqual(stored.json.authority, { objectType: 'Agent', name: 'Ada Lovelace', account: { homePage: lrs.config.consoleOidcIssuer, name: 'ada' } })
  // signing out from outside needs the token too
  assert.equal((await fetch(lrs.url + '/console/sso/sign-out', { method: 'POST', headers: { cookie: cookieHeader(session) } })).status, 403)

  // sign-out: the session ends here, then at the provider, and back to the console
  await page.click('#sign-out')
  await page.waitForSelector('button[name=logout]') // the provider's "sign me out" (the console has forms of its own)
  await Promise.all([page.waitForNavigation(), page.click('button[name=logout]')])
  await page.waitForSelector('#sso:not([hidden])')
  assert.equal(await page.$eval('#nav', (e) => e.hidden), true)
  assert.equal((await asCookie('/admin/credentials', { 'X-CSRF-Token': state.csrf })).status, 401, 'the old cookie is refused after sign-out')
  assert.equal(await onSecond(), 401, 'on every worker at once')
  assert.deepEqual(seen.errors.filter((e) => !/127\.0\.0\.1:\d+\/(interaction|session|auth)/.test(e)), [])
})

test('console single sign-on: no allowed group is refused with a reason; a group of a store signs in to that store only with its scopes', { skip: browserSkip() }, async (t) => {
  const { lrs } = await ssoLrs()
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const page = await browser.newPage()

  await page.goto(lrs.url + '/console/sso/start')
  await signInAtProvider(page, 'bob')
  await page.waitForFunction(() => /not in a group that may use this console/.test(document.getElementById('sign-in-error').textContent))
  assert.equal(await page.$eval('#nav', (e) => e.hidden), true)
  assert.ok(!(await page.cookies(lrs.url)).some((c) => c.name === '__Host-lrs-console'))
  // `?sso=` is looked up in the page's own list: the names every object
  // inherits are no reason, and show nothing
  for (const word of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    await page.goto(`${lrs.url}/console/?sso=${word}`)
    await page.waitForSelector('#sso:not([hidden])') // the page's script has read the address
    assert.equal(await page.$eval('#sign-in-error', (e) => e.textContent), '', `?sso=${word}`)
  }

  const { state, cookie, page: carols } = await signedInSession(browser, lrs, 'carol')
  assert.equal(state.store, 'acme')
  // a link that names its store opens; one that names another is refused
  await carols.goto(lrs.url + '/console/#/statements?store=acme')
  await carols.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Statements')
  await carols.goto(lrs.url + '/console/#/statements?store=default')
  await carols.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Another store')
  assert.deepEqual(state.scopes, ['admin', 'all/read'])
  const headers = { cookie, 'X-CSRF-Token': state.csrf, 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' }
  assert.equal((await fetch(lrs.url + '/xapi/statements', { method: 'POST', headers, body: JSON.stringify(statement()) })).status, 403, 'all/read writes nothing')
  assert.equal((await fetch(lrs.url + '/admin/stores', { headers })).status, 403, 'no stores/admin')
  assert.equal((await fetch(lrs.url + '/xapi/statements', { headers: { ...headers, 'X-LRS-Store': 'default' } })).status, 403, 'no other store')
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement() })).status, 200) // in the default store
  assert.equal((await (await fetch(lrs.url + '/xapi/statements', { headers })).json()).statements.length, 0, 'acme holds none')
})

test('console sessions end after LRS_CONSOLE_SESSION_IDLE_S without a request and LRS_CONSOLE_SESSION_MAX_S after the sign-in', { skip: browserSkip() }, async (t) => {
  let offset = 0
  const { lrs } = await ssoLrs({ LRS_CONSOLE_SESSION_IDLE_S: '600', LRS_CONSOLE_SESSION_MAX_S: '1200' }, { hooks: { now: () => Date.now() + offset } })
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const signedIn = async () => {
    const { state, cookie } = await signedInSession(browser, lrs, 'ada')
    return () => fetch(lrs.url + '/admin/credentials', { headers: { cookie, 'X-CSRF-Token': state.csrf } }).then((r) => r.status)
  }

  const idle = await signedIn()
  offset += 500 * 1000
  assert.equal(await idle(), 200, 'used within the idle time')
  offset += 500 * 1000
  assert.equal(await idle(), 200, 'and again: the idle time counts from the last use')
  offset += 601 * 1000
  assert.equal(await idle(), 401, 'idle too long')

  const busy = await signedIn()
  for (let i = 0; i < 3; i++) {
    offset += 390 * 1000
    assert.equal(await busy(), 200, `${390 * (i + 1)} s after the sign-in, in use`)
  }
  offset += 40 * 1000 // 1,210 s after the sign-in
  assert.equal(await busy(), 401, 'past the absolute time, in use or not')
})

test('with LRS_CONSOLE_SESSION_IDLE_S=60 (the least allowed), a session used every 10 s goes on; the expiresAt it reports is when it ends', { skip: browserSkip() }, async (t) => {
  let offset = 0
  const { lrs } = await ssoLrs({ LRS_CONSOLE_SESSION_IDLE_S: '60' }, { hooks: { now: () => Date.now() + offset } })
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const { state, cookie } = await signedInSession(browser, lrs, 'ada')
  const use = () => fetch(lrs.url + '/admin/credentials', { headers: { cookie, 'X-CSRF-Token': state.csrf } }).then((r) => r.status)
  const reportedEnd = async () => Date.parse((await (await fetch(lrs.url + '/console/sso', { headers: { cookie } })).json()).expiresAt)
  const at = (ms) => { offset = ms - Date.now() } // the LRS's clock reads ms

  for (let i = 1; i <= 18; i++) {
    offset += 10 * 1000
    assert.equal(await use(), 200, `${10 * i} s after the sign-in, used every 10 s`)
  }
  // alive a second before the end it reported (which moves it on), gone a
  // second after the end reported then; asked 5 s after a use, which need
  // not have been written (uses are written a tenth of the idle time apart)
  offset += 5 * 1000
  at(await reportedEnd() - 1000)
  assert.equal(await use(), 200, 'a second before its expiresAt')
  at(await reportedEnd() + 1000)
  assert.equal(await use(), 401, 'a second after its expiresAt')
})
