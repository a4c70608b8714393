'use strict'

// The console (/console) in a real browser: sign-in, the Statements
// browser, Credentials, Learner erasure page checked with axe-core.
// and Forwarding. Statements are hostile input: names, displays and IRIs that would run
// script if they were ever parsed as markup or followed as links are shown
// as text, and nothing runs (window.__pwned stays undefined, no dialog).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const http = require('node:http')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startLrs, ADMIN } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { until } = require('../helpers/wait')
const { browserSkip, launchBrowser, watchedPage, accessibilityProblems, overflowWidth, screenshot, fill, textOf, submitSignIn, assertNothingRan } = require('../helpers/browser')

const VOIDED = 'http://adlnet.gov/expapi/verbs/voided'
const HOSTILE_NAME = '<script>window.__pwned = "name"</script>'
const HOSTILE_DISPLAY = '<img src=x onerror="window.__pwned = \'display\'; alert(1)">'
const HOSTILE_IRI = 'javascript:window.__pwned=1;alert(1)'

test('the console in a browser', { skip: browserSkip() }, async (t) => {
  const browser = await launchBrowser()
  t.after(() => browser.close())
  // an upstream that refuses every statement for good, with a hostile answer
  const upstream = http.createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(400, { 'Content-Type': 'text/plain' }).end(HOSTILE_NAME))
  })
  await new Promise((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise((resolve) => upstream.close(resolve)))
  const upstreamId = `127.0.0.1:${upstream.address().port}/xapi`
  const lrs = await startLrs({ LRS_FORWARD_URLS: 'http://' + upstreamId, LRS_FORWARD_TIMEOUT_MS: '1000' })
  const learner = `learner-${crypto.randomUUID()}@example.com`
  const course = 'http://example.com/course/' + crypto.randomUUID()

  // 30 statements of one learner (two pages of 25), a voided one, and the hostile ones
  const own = Array.from({ length: 30 }, (_, i) => statement({
    actor: { objectType: 'Agent', name: 'Ada', mbox: 'mailto:' + learner },
    verb: { id: 'http://example.com/verbs/attempted', display: { 'en-US': 'attempted' } },
    object: { objectType: 'Activity', id: `${course}/${i}`, definition: { name: { 'en-US': `Lesson ${i}` } } }
  }))
  const toVoid = statement({ id: crypto.randomUUID(), actor: { objectType: 'Agent', name: 'Ada', mbox: 'mailto:' + learner } })
  const hostile = statement({
    actor: { objectType: 'Agent', name: HOSTILE_NAME, mbox: `mailto:mallory-${crypto.randomUUID()}@example.com` },
    verb: { id: 'http://example.com/verbs/pwned', display: { 'en-US': HOSTILE_DISPLAY } },
    object: { objectType: 'Activity', id: HOSTILE_IRI, definition: { name: { 'en-US': HOSTILE_DISPLAY }, extensions: { 'http://example.com/ext': '<script>window.__pwned = "ext"</script>' } } },
    attachments: [{ usageType: 'http://example.com/usage/cert', display: { 'en-US': HOSTILE_NAME }, contentType: 'application/pdf', length: 10, sha2: 'a'.repeat(64), fileUrl: 'http://example.com/cert.pdf' }]
  })
  for (const body of [own, toVoid, hostile]) {
    const res = await lrs.client('/statements', { method: 'POST', body })
    assert.equal(res.status, 200, res.text)
  }
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement({ verb: { id: VOIDED, display: { 'en-US': 'voided' } }, object: { objectType: 'StatementRef', id: toVoid.id } }) })).status, 200)

  const { page, seen } = await watchedPage(browser)
  const nothingRan = () => assertNothingRan(page, seen, { elements: false })
  const accessible = async () => assert.deepEqual(await accessibilityProblems(page), [])

  await t.test('the console is served with a CSP allowing no inline script or style, and signs in only with an admin credential, kept in memory', async () => {
    const res = await fetch(lrs.url + '/console/')
    assert.equal(res.status, 200)
    const csp = res.headers.get('content-security-policy')
    assert.match(csp, /script-src 'self'(;|$)/)
    assert.match(csp, /style-src 'self'(;|$)/)
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/)
    assert.doesNotMatch(await res.text(), /<script>|<style|\sstyle=|\son\w+=/, 'no inline script, style or handler in the page')
    assert.equal(res.headers.get('set-cookie'), null)

    assert.equal((await lrs.http('/admin/credentials', { method: 'POST', body: { key: 'reader', secret: 'a-long-enough-secret', scopes: ['all/read'] } })).status, 201)
    await page.goto(lrs.url + '/console/#/statements?verb=' + encodeURIComponent('http://example.com/verbs/attempted'))
    await accessible()
    await screenshot(page, 'console-sign-in')
    const signIn = (key, secret) => submitSignIn(page, key, secret)
    await signIn(ADMIN.user, 'wrong-secret')
    await page.waitForFunction(() => document.getElementById('sign-in-error').textContent !== '')
    assert.match(await textOf(page, '#sign-in-error'), /not a valid credential/)
    await signIn('reader', 'a-long-enough-secret')
    await page.waitForFunction(() => /admin scope/.test(document.getElementById('sign-in-error').textContent))
    await signIn(ADMIN.user, ADMIN.password)
    await page.waitForSelector('#nav:not([hidden])')
    assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]), [0, 0, ''], 'nothing of the credential is stored')
  })

  await t.test('Statements: the shared query link opens filtered, newest first, paged with more; a statement opens in full and a voided one is marked', async () => {
    await page.waitForSelector('tbody tr')
    const stored = async () => page.$$eval('tbody tr td:first-child', (tds) => tds.map((td) => td.textContent))
    const first = await stored()
    assert.equal(first.length, 25)
    assert.deepEqual(first, [...first].sort().reverse(), 'newest first')
    assert.ok((await page.$$eval('tbody tr td:nth-child(3)', (tds) => tds.map((td) => td.textContent))).every((v) => v === 'attempted'), 'only the verb asked for')
    await page.click('#more')
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 30)
    assert.equal(await page.$eval('#more', (b) => b.hidden), true, 'no more after the last page')

    // the agent filter, typed as an e-mail address, goes into the link to share
    await fill(page, 'form.filters input[name=agent]', learner)
    await fill(page, 'form.filters input[name=limit]', '50')
    await page.click('form.filters button[type=submit]')
    // the page had 30 rows before the submit too: wait for the link the submit makes
    await page.waitForFunction(() => /agent=/.test(window.location.hash) && /agent=/.test(document.querySelector('#share-link')?.getAttribute('href') || '') && document.querySelectorAll('tbody tr').length === 30)
    const shared = new URLSearchParams((await page.$eval('#share-link', (a) => a.getAttribute('href'))).replace('#/statements?', ''))
    assert.equal(shared.get('agent'), learner)
    assert.equal(shared.get('verb'), 'http://example.com/verbs/attempted')

    // open one: its JSON in full
    await page.click(`tbody tr:first-child button.open`)
    await page.waitForSelector('pre.json')
    const shown = JSON.parse(await textOf(page, 'pre.json'))
    assert.equal(shown.verb.id, 'http://example.com/verbs/attempted')
    assert.ok(shown.stored && shown.authority, 'the statement as stored')

    // a voided one, by id: marked
    await fill(page, 'input[name=id]', toVoid.id)
    await page.click('form[aria-label="Open a statement by id"] button')
    await page.waitForSelector('.badge.voided')
    assert.equal(JSON.parse(await textOf(page, 'pre.json')).id, toVoid.id)
    await accessible()
    await page.evaluate(() => window.scrollTo(0, 0))
    await screenshot(page, 'console-statements')
    await nothingRan()
  })

  await t.test('Statements: a <script> name, an <img onerror> display, a javascript: activity id and extension are shown as text and nothing runs', async () => {
    await page.goto(lrs.url + '/console/#/statements?verb=' + encodeURIComponent('http://example.com/verbs/pwned'))
    await page.waitForSelector('tbody tr')
    const cells = await page.$$eval('tbody tr:first-child td', (tds) => tds.map((td) => td.textContent))
    assert.ok(cells[1].startsWith(HOSTILE_NAME), cells[1])
    assert.equal(cells[2], HOSTILE_DISPLAY)
    assert.equal(cells[3], `${HOSTILE_DISPLAY} (${HOSTILE_IRI})`)
    assert.equal(await page.$$eval('main script, main img, main iframe', (els) => els.length), 0, 'no element made from the data')
    assert.equal(await page.$$eval('a[href^="javascript:"]', (els) => els.length), 0, 'no javascript: link')
    await page.click('tbody tr:first-child button.open')
    await page.waitForSelector('pre.json')
    assert.equal(JSON.parse(await textOf(page, 'pre.json')).object.id, HOSTILE_IRI)
    assert.match(await textOf(page, 'section.detail ul'), /<script>window.__pwned = "name"<\/script>: application\/pdf, 10 bytes/, 'the attachment is listed, its display as text')
    await nothingRan()
  })

  await t.test('Overview: statements stored, per hour (a chart), top verbs by their display and activities (an <img onerror> display and a javascript: activity id as text), per credential, forwarding, workers', async () => {
    // the hostile activity among the top 10 (the others have one statement each)
    const again = Array.from({ length: 2 }, () => statement({ verb: hostile.verb, object: { objectType: 'Activity', id: HOSTILE_IRI } }))
    assert.equal((await lrs.client('/statements', { method: 'POST', body: again })).status, 200)
    await page.goto(lrs.url + '/console/#/overview')
    await page.waitForSelector('svg.chart')
    const stats = await page.$$eval('dl.stats div', (divs) => Object.fromEntries(divs.map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent])))
    assert.equal(stats['Statements stored'], '35')
    assert.equal(stats['Last 24 hours'], '35')
    assert.equal(stats['Workers up'], '1')
    assert.equal(await page.$$eval('svg.chart rect.bar', (bars) => bars.length), 25)
    const cellsOf = (heading) => page.$$eval('section', (sections, h) => {
      const s = sections.find((x) => x.querySelector('h2').textContent === h)
      return [...s.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent))
    }, heading)
    // each verb by its display (the newest statement's), linked, with its IRI beneath
    const verbs = await page.$$eval('section', (sections) => [...sections.find((x) => x.querySelector('h2').textContent === 'Top verbs').querySelectorAll('tbody tr')]
      .map((tr) => [tr.querySelector('a').textContent, tr.querySelector('.verb-iri') && tr.querySelector('.verb-iri').textContent, tr.querySelector('a').getAttribute('href'), tr.querySelector('td:last-child').textContent]))
    assert.deepEqual(verbs[0], ['attempted', 'http://example.com/verbs/attempted', '#/statements?verb=' + encodeURIComponent('http://example.com/verbs/attempted'), '30'])
    assert.deepEqual(verbs[1].slice(0, 2), [HOSTILE_DISPLAY, 'http://example.com/verbs/pwned'], 'the hostile display, as text')
    assert.ok((await cellsOf('Top activities')).some(([id, n]) => id === HOSTILE_IRI && n === '3'), 'the hostile activity id, as text')
    assert.equal(await page.$$eval('a[href^="javascript:"]', (els) => els.length), 0, 'no javascript: link')
    assert.equal(await page.$$eval('main script, main img, main iframe', (els) => els.length), 0, 'no element made from the data')
    assert.ok(await page.$$eval('td', (tds, key) => tds.some((td) => td.textContent === key), ADMIN.user), 'the credential that posted')
    assert.ok(await page.$$eval('td', (tds, id) => tds.some((td) => td.textContent === id), upstreamId), 'the upstream')
    assert.equal(await overflowWidth(page), 0, 'the long activity ids wrap: nothing is pushed out of the window')
    await accessible() // its screenshot is page-load.test.js's, of a store of 100,000 statements
    await nothingRan()
  })

  await t.test('a page still waiting for the LRS when another is chosen never replaces the one chosen after it', async () => {
    const held = []
    const hold = (req) => {
      if (req.isInterceptResolutionHandled()) return
      if (new URL(req.url()).pathname === '/admin/overview') held.push(req)
      else req.continue()
    }
    await page.setRequestInterception(true)
    page.on('request', hold)
    try {
      await page.click('#nav a[href="#/forwarding"]')
      await page.waitForSelector('#replay-status')
      await page.click('#nav a[href="#/overview"]')
      await until(async () => held.length === 1, { within: 5000 })
      await page.click('#nav a[href="#/erasure"]')
      await page.waitForSelector('#find-agent')
      held[0].continue() // the Overview's answer, after the Erasure page is shown
      await page.waitForResponse((r) => new URL(r.url()).pathname === '/admin/overview')
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.equal(await textOf(page, 'main h1'), 'Learner erasure')
      assert.equal(await page.$('svg.chart'), null)
    } finally {
      page.off('request', hold)
      await page.setRequestInterception(false)
    }
  })

  await t.test('Credentials: create one with scopes (its secret shown once), change its scopes, revoke it: then the xAPI answers it 401', async () => {
    await page.goto(lrs.url + '/console/#/credentials')
    await page.waitForSelector('#credential-list table')
    assert.match(await textOf(page, `tr[data-key="${ADMIN.user}"]`), /managed by the configuration/)
    await fill(page, '#create-credential input[name=key]', 'lms-1')
    await page.click('#create-credential input[value="statements/read"]')
    await page.click('#create-credential button[type=submit]')
    await page.waitForSelector('#new-secret')
    const secret = await textOf(page, '#new-secret')
    await page.waitForSelector('tr[data-key="lms-1"]')
    assert.match(await textOf(page, 'tr[data-key="lms-1"] td:nth-child(2)'), /^statements\/write, statements\/read$|^statements\/read, statements\/write$/)
    assert.equal(await textOf(page, 'tr[data-key="lms-1"] td:nth-child(4)'), 'never', 'last used: never')
    assert.equal((await lrs.client('/statements?limit=1', { auth: ['lms-1', secret] })).status, 200)
    const lastUsed = async () => (await lrs.http('/admin/credentials')).json.credentials.find((c) => c.key === 'lms-1').lastUsedAt
    assert.ok(await until(async () => (await lastUsed()) !== null), 'its use is recorded')
    await accessible()
    await screenshot(page, 'console-credentials')

    // scopes: statements/write only
    await page.click('button[data-edit="lms-1"]')
    await page.click('tr[data-key="lms-1"] input[value="statements/read"]')
    await page.click('tr[data-key="lms-1"] button[type=submit]')
    await page.waitForFunction(() => document.querySelector('tr[data-key="lms-1"] td:nth-child(2)').textContent === 'statements/write')
    assert.equal(await textOf(page, 'tr[data-key="lms-1"] td:nth-child(4)'), await lastUsed(), 'the list, reloaded, shows when it was used')

    await page.click('button[data-revoke="lms-1"]')
    assert.equal(await textOf(page, 'button[data-revoke="lms-1"]'), 'Confirm revoke', 'revoking asks once more')
    await page.click('button[data-revoke="lms-1"]')
    await page.waitForFunction(() => !document.querySelector('tr[data-key="lms-1"]'))
    // every worker drops it within LRS_CREDENTIAL_POLL_MS
    assert.ok(await until(async () => (await lrs.client('/statements?limit=1', { auth: ['lms-1', secret] })).status === 401, { within: 3000 }), 'the revoked credential gets 401')
    await nothingRan()
  })

  await t.test('Learner erasure: preview, confirm by typing the identifier, see what was removed', async () => {
    await page.goto(lrs.url + '/console/#/erasure')
    await page.waitForSelector('#find-agent')
    await fill(page, '#find-agent input[name=agent]', learner)
    await page.click('#find-agent button')
    await page.waitForSelector('#erasure-preview')
    assert.match(await textOf(page, '#erasure-preview'), /statements: 31/)
    const erase = '#confirm-erasure button[type=submit]'
    assert.equal(await page.$eval(erase, (b) => b.disabled), true)
    await page.type('#confirm-erasure input[name=identifier]', 'mailto:someone-else@example.com')
    assert.equal(await page.$eval(erase, (b) => b.disabled), true, 'another identifier does not confirm')
    await fill(page, '#confirm-erasure input[name=identifier]', 'mailto:' + learner)
    assert.equal(await page.$eval(erase, (b) => b.disabled), false)
    await accessible()
    await screenshot(page, 'console-erasure')
    await page.click(erase)
    await page.waitForSelector('#erasure-result')
    assert.match(await textOf(page, '#erasure-result'), /statements: 31/)
    const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:' + learner }))
    assert.equal((await lrs.client(`/statements?agent=${agent}`)).json.statements.length, 0)
    await nothingRan()
  })

  await t.test('Forwarding: the upstream with its queue and dead letters (its answer shown as text), and their replay', async () => {
    const dead = async () => (await lrs.http('/admin/forwarding/dead-letters')).json.deadLetters.length
    assert.ok(await until(async () => await dead() > 0, { within: 10000 }), 'the upstream refused statements')
    await page.goto(lrs.url + '/console/#/forwarding')
    await page.waitForSelector(`tr[data-upstream="${upstreamId}"]`)
    const cells = await page.$$eval(`tr[data-upstream="${upstreamId}"] td`, (tds) => tds.map((td) => td.textContent))
    assert.equal(cells[0], upstreamId)
    assert.equal(cells[1], 'every store', 'LRS_FORWARD_URLS gets every store\'s statements')
    assert.ok(Number(cells[4]) > 0, 'dead letters counted')
    assert.ok(await page.$$eval('td', (tds) => tds.some((td) => td.textContent === '<script>window.__pwned = "name"</script>')), 'the upstream\'s answer as text')
    await accessible()
    await screenshot(page, 'console-forwarding')
    await page.click(`tr[data-upstream="${upstreamId}"] button`)
    await page.waitForFunction(() => /put back in the outbox/.test(document.getElementById('replay-status').textContent))
    assert.match(await textOf(page, '#replay-status'), /^[1-9]\d* put back in the outbox of /)
    await nothingRan()
  })

  await t.test('Forwarding: dead letters are discarded only on a second click, and then the admin API lists none for that upstream', async () => {
    const dead = async () => (await lrs.http(`/admin/forwarding/dead-letters?upstream=${encodeURIComponent(upstreamId)}`)).json.deadLetters.length
    // the replayed statements are refused again by the upstream
    assert.ok(await until(async () => await dead() > 0, { within: 10000 }), 'dead letters again')
    // the page shows what it read when opened: opened again from the menu
    await page.click('#nav a[href="#/credentials"]')
    await page.waitForSelector('#credential-list table')
    await page.click('#nav a[href="#/forwarding"]')
    const button = `tr[data-upstream="${upstreamId}"] button[data-action=discard]`
    await page.waitForSelector(button)
    await page.click(button)
    await page.waitForFunction(() => /for good/.test(document.getElementById('replay-status').textContent))
    assert.ok(await dead() > 0, 'one click discards nothing')
    await page.click(button)
    await page.waitForFunction(() => /discarded\.$/.test(document.getElementById('replay-status').textContent))
    assert.match(await textOf(page, '#replay-status'), /^[1-9]\d* dead letters of .* discarded\.$/)
    assert.equal(await dead(), 0)
    await page.waitForFunction((id) => !document.querySelector(`tr[data-upstream="${id}"] button`), {}, upstreamId)
    await nothingRan()
  })

  await t.test('a credential with admin alone: the Statements page says it lacks statements/read and shows no statement (the xAPI answered it 403); as its scopes change, the console does what the API then allows, no more', async (st) => {
    const [key, secret] = ['ops-' + crypto.randomUUID().slice(0, 8), 'a-long-enough-secret']
    assert.equal((await lrs.http('/admin/credentials', { method: 'POST', body: { key, secret, scopes: ['admin'] } })).status, 201)
    const setScopes = async (scopes) => assert.equal((await lrs.http('/admin/credentials/' + key, { method: 'PUT', body: { scopes } })).status, 200)
    const { page: ops, seen } = await watchedPage(browser)
    st.after(() => ops.close())
    const reads = [] // the answers to its statement reads
    ops.on('response', (r) => { if (new URL(r.url()).pathname === '/xapi/statements') reads.push(r.status()) })
    // a shared link to a statement: the list and the statement both refused
    await ops.goto(lrs.url + '/console/#/statements?statementId=' + toVoid.id)
    await submitSignIn(ops, key, secret)
    await ops.waitForFunction(() => document.querySelectorAll('.refused').length === 2)
    const message = await ops.$eval('section[aria-label=Results] .refused', (e) => e.textContent)
    assert.match(message, /^This credential cannot read statements/)
    assert.match(message, /needs a scope that reads statements, such as statements\/read\./)
    assert.ok(message.includes(`The LRS refused ${key}: this request needs one of the scopes all, all/read, statements/read, statements/read/mine; the credential has admin.`), message)
    assert.equal(await ops.$$eval('tbody tr, pre.json', (els) => els.length), 0, 'no statement shown')
    assert.ok(reads.length >= 2 && reads.every((status) => status === 403), `the xAPI refused every read: ${reads}`)
    assert.deepEqual(await accessibilityProblems(ops), [])
    await ops.click('#nav a[href="#/overview"]')
    await ops.waitForSelector('svg.chart') // its admin pages work

    // Reloading would sign out (the credential is in the page's memory):
    // the page is chosen again, through another, until the change is seen.
    const showsOnceChanged = (href, ready) => until(async () => {
      await ops.click('#nav a[href="#/erasure"]')
      await ops.waitForSelector('#find-agent')
      await ops.click(`#nav a[href="${href}"]`)
      return ops.waitForFunction(ready, { timeout: 2000 }).then(() => true, () => false)
    }, { within: 10000 })
    // given statements/read, the same page lists statements
    await setScopes(['admin', 'statements/read'])
    assert.ok(await showsOnceChanged('#/statements', () => document.querySelectorAll('tbody tr').length > 0), 'statements listed once it may read them')
    // without admin, an admin page shows the API's refusal and lists nothing
    await setScopes(['statements/read'])
    assert.ok(await showsOnceChanged('#/credentials', () => /needs one of the scopes admin; the credential has statements\/read/.test(document.getElementById('credential-list')?.textContent)), 'the Credentials page shows the refusal')
    assert.equal(await ops.$$eval('#credential-list tr', (trs) => trs.length), 0, 'no credential listed')
    assert.deepEqual(seen.errors, [])
  })
})

test('the store switcher: a stores/admin credential picks the store every page shows, the address keeps it; any other sees its own', { skip: browserSkip() }, async (t) => {
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const lrs = await startLrs()
  // a name that would read as another store's id: a right-to-left override
  const spoof = 'Evil \u202e(acme) '
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme', name: 'ACME Corp' } })).status, 201)
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'evil', name: spoof + 'x'.repeat(150) } })).status, 201)
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all', 'admin'], store: 'acme' } })
  const homeKey = (await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['statements/write'] } })).json.key
  const verb = (word) => ({ id: `http://example.com/verbs/${word}`, display: { 'en-US': word } })
  const [acmeId] = (await lrs.client('/statements', { method: 'POST', auth: [made.json.key, made.json.secret], body: statement({ verb: verb('acme-only'), result: { response: 'left \u202eright' } }) })).json
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement({ verb: verb('home-only') }) })).status, 200)

  const { page, seen } = await watchedPage(browser)
  const table = () => page.$eval('tbody', (e) => e.textContent)
  const hash = () => page.evaluate(() => window.location.hash)
  await page.goto(lrs.url + '/console/#/statements')
  await submitSignIn(page, ADMIN.user, ADMIN.password)
  await page.waitForSelector('#store-choice:not([hidden])')
  const options = await page.$$eval('#store option', (os) => os.map((o) => [o.value, o.textContent]))
  assert.deepEqual(options.slice(0, 3), [['', 'its own store'], ['default', '\u2068Default store\u2069 (default)'], ['acme', '\u2068ACME Corp\u2069 (acme)']])
  assert.equal(options[3][1], `\u2068${spoof}${'x'.repeat(150)}\u2069 (evil)`, 'a name is isolated: its override ends before the id')
  await page.waitForFunction(() => document.querySelector('tbody')?.textContent.includes('home-only'))
  assert.ok(!(await table()).includes('acme-only'))

  await page.select('#store', 'acme')
  await page.waitForFunction(() => document.querySelector('tbody')?.textContent.includes('acme-only'))
  assert.ok(!(await table()).includes('home-only'), 'the statements page shows the chosen store only')
  assert.equal(await hash(), '#/statements?store=acme')
  // a search keeps the store, and the link to share names it
  await fill(page, 'form.filters input[name=verb]', 'http://example.com/verbs/acme-only')
  await page.click('form.filters button[type=submit]')
  await page.waitForFunction(() => window.location.hash.includes('verb='))
  await page.waitForFunction(() => document.querySelector('#share-link')?.getAttribute('href').includes('verb='))
  const shared = await page.$eval('#share-link', (a) => a.href)
  assert.match(shared, /store=acme/)
  assert.equal(await page.$eval('#store', (s) => s.value), 'acme')
  // its credentials are acme's only
  await page.click('#nav a[href="#/credentials"]')
  await page.waitForSelector(`tr[data-key="${made.json.key}"]`)
  assert.match(await hash(), /store=acme/)
  const keys = await page.$$eval('#credential-list tr[data-key]', (trs) => trs.map((tr) => tr.dataset.key))
  assert.deepEqual(keys, [made.json.key], 'no other store\'s credential is listed (or revocable) with acme chosen')
  const offered = await page.$$eval('#create-credential input[name=scope]', (is) => is.map((i) => i.value))
  assert.ok(offered.includes('stores/admin') && !offered.includes('metrics'), 'metrics is the default store\'s only: ' + offered)
  assert.deepEqual(await accessibilityProblems(page), [])
  // Back: the store of before
  await page.goBack()
  await page.waitForFunction(() => window.location.hash.includes('verb='))
  await page.goto(lrs.url + '/console/#/statements?store=default')
  await page.waitForFunction(() => document.querySelector('tbody')?.textContent.includes('home-only'))
  assert.equal(await page.$eval('#store', (s) => s.value), 'default')
  // every store's credentials, each with its store, with none chosen
  await page.select('#store', '')
  await page.click('#nav a[href="#/credentials"]')
  await page.waitForSelector(`tr[data-key="${homeKey}"]`)
  assert.ok(await page.$(`tr[data-key="${made.json.key}"]`))
  assert.ok((await page.$$eval('#credential-list th', (ths) => ths.map((th) => th.textContent))).includes('Store'))
  // an acme statement id looked up in the default store
  await page.goto(lrs.url + `/console/#/statements?store=default&statementId=${acmeId}`)
  await page.waitForFunction(() => document.querySelector('section.detail')?.textContent.includes('in this store'))
  assert.equal(await textOf(page, 'section.detail'), `No statement ${acmeId} in this store.`)
  // in its store: its JSON, a right-to-left override in it written as an escape (the same JSON)
  await page.goto(lrs.url + `/console/#/statements?store=acme&statementId=${acmeId}`)
  await page.waitForSelector('pre.json')
  const json = await textOf(page, 'pre.json')
  assert.ok(json.includes('"response": "left \\u202eright"') && !json.includes('\u202e'), json)
  assert.equal(JSON.parse(json).result.response, 'left \u202eright')
  // a store this LRS does not have
  await page.goto(lrs.url + '/console/#/overview?store=nowhere')
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'No such store')
  // on a phone: the long name does not push the page sideways
  await page.setViewport({ width: 375, height: 700 })
  await page.goto(lrs.url + '/console/#/statements?store=evil')
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Statements')
  assert.equal(await overflowWidth(page), 0, 'nothing wider than the window')
  await page.setViewport({ width: 1280, height: 800 })

  // the shared link, opened in a fresh page (signed in again): acme's
  const fresh = await watchedPage(browser)
  await fresh.page.goto(shared)
  await submitSignIn(fresh.page, ADMIN.user, ADMIN.password)
  await fresh.page.waitForFunction(() => document.querySelector('tbody')?.textContent.includes('acme-only'))
  assert.equal(await fresh.page.$eval('#store', (s) => s.value), 'acme')
  assert.deepEqual(fresh.seen.errors, [])
  await fresh.page.close()
  await page.bringToFront()

  // signing out leaves no store's name in the page
  await page.click('#sign-out')
  assert.equal(await page.$$eval('#store option', (os) => os.length), 0)
  // a store's own admin: no switcher, its own store
  await submitSignIn(page, made.json.key, made.json.secret)
  await page.waitForSelector('#nav:not([hidden])')
  await page.click('#nav a[href="#/statements"]')
  await page.waitForFunction(() => document.querySelector('tbody')?.textContent.includes('acme-only'))
  assert.match(await hash(), /store=acme/, 'its links name its store')
  assert.equal(await page.$eval('#store-choice', (e) => e.hidden), true)
  assert.equal(await page.$eval('#nav-stores', (e) => e.hidden), true, 'no Stores page without stores/admin')
  await page.click('#nav a[href="#/credentials"]')
  await page.waitForSelector('#create-credential')
  const its = await page.$$eval('#create-credential input[name=scope]', (is) => is.map((i) => i.value))
  assert.ok(!its.includes('stores/admin') && !its.includes('metrics'), 'it offers no scope it cannot give or use: ' + its)
  // typed addresses: the Stores page, another store
  await page.goto(lrs.url + '/console/#/stores')
  await page.waitForFunction(() => document.querySelector('main .error')?.textContent.includes('stores/admin'))
  assert.equal(await page.$('#create-store'), null, 'no form to create a store')
  await page.goto(lrs.url + '/console/#/statements?store=default')
  await page.waitForFunction(() => document.querySelector('main h1')?.textContent === 'Another store')
  assert.equal(await page.$('tbody'), null, 'nothing of another store, nor its own under another\'s name')
  assert.deepEqual(seen.errors, [])
})

test('the Stores page: a stores/admin credential lists, creates, renames, sets retention and upstreams, and deletes a store after its preview and its id typed', { skip: browserSkip() }, async (t) => {
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const lrs = await startLrs()
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme', name: 'ACME Corp' } })).status, 201)
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: 'acme' } })
  const acme = [made.json.key, made.json.secret]
  assert.equal((await lrs.client('/statements', { method: 'POST', auth: acme, body: [statement(), statement()] })).status, 200)
  const stateUrl = '/activities/state?' + new URLSearchParams({ activityId: 'http://example.com/a', agent: JSON.stringify({ mbox: 'mailto:a@example.com' }), stateId: 'bookmark' })
  assert.equal((await lrs.client(stateUrl, { method: 'PUT', auth: acme, headers: { 'Content-Type': 'application/json' }, body: { at: 3 } })).status, 204)

  const { page, seen } = await watchedPage(browser)
  const cells = (id) => page.$$eval(`tr[data-store="${id}"] td`, (tds) => tds.map((td) => td.textContent))
  const storeOptions = () => page.$$eval('#store option', (os) => os.map((o) => o.value))
  await page.goto(lrs.url + '/console/#/overview')
  await submitSignIn(page, ADMIN.user, ADMIN.password)
  await page.waitForSelector('#nav-stores:not([hidden])')
  // the store chosen in the menu does not change what the page manages
  await page.select('#store', 'acme')
  await page.click('#nav-stores')
  await page.waitForSelector('tr[data-store="acme"]')
  assert.deepEqual((await cells('acme')).slice(0, 8), ['acme', 'ACME Corp', '2', '1 (8 B)', '0 (0 B)', '1', 'for good', '—'])
  assert.ok(await page.$('tr[data-store="default"]'), 'the default store is listed')
  assert.equal(await page.$('tr[data-store="default"] [data-delete]'), null, 'the default store offers no deletion')
  assert.deepEqual(await accessibilityProblems(page), [])

  await t.test('create: a name is text, the store joins the menu; an id in use is refused with the API\'s words', async () => {
    await fill(page, '#create-store input[name=id]', 'beta')
    await fill(page, '#create-store input[name=name]', HOSTILE_NAME)
    await fill(page, '#create-store input[name=retentionDays]', '30')
    await page.click('#create-store button[type=submit]')
    await page.waitForSelector('tr[data-store="beta"]')
    assert.deepEqual((await cells('beta')).slice(0, 8), ['beta', HOSTILE_NAME, '0', '0 (0 B)', '0 (0 B)', '0', '30 days', '—'])
    const stored = await lrs.http('/admin/stores/beta')
    assert.equal(stored.json.name, HOSTILE_NAME)
    assert.equal(stored.json.retentionDays, 30)
    await page.waitForFunction(() => [...document.querySelectorAll('#store option')].some((o) => o.value === 'beta'))
    assert.equal(await page.$eval('#store', (s) => s.value), 'acme', 'the menu keeps its choice')

    await fill(page, '#create-store input[name=id]', 'beta')
    await page.click('#create-store button[type=submit]')
    await page.waitForSelector('#create-store .error')
    assert.match(await textOf(page, '#create-store .error'), /A store with this id exists \(409\)/)
    assert.equal(await page.evaluate(() => window.__pwned), undefined)
  })

  await t.test('change: name and retention, then the upstreams, shown without their credentials; a bad URL is refused', async () => {
    await page.click('[data-edit="beta"]')
    await page.waitForSelector('#change-store')
    await fill(page, '#change-store input[name=name]', 'Beta Ltd')
    await fill(page, '#change-store input[name=retentionDays]', '')
    await page.click('#change-store button[type=submit]')
    await page.waitForFunction(() => document.querySelector('tr[data-store="beta"] td:nth-child(2)')?.textContent === 'Beta Ltd')
    assert.equal((await cells('beta'))[6], 'for good')
    assert.equal((await lrs.http('/admin/stores/beta')).json.retentionDays, null)
    await page.waitForFunction(() => [...document.querySelectorAll('#store option')].some((o) => o.textContent === '\u2068Beta Ltd\u2069 (beta)'))

    await page.click('[data-edit="beta"]')
    await page.waitForSelector('#store-upstreams')
    await page.type('#store-upstreams textarea', 'ftp://upstream.example.com/xapi')
    await page.click('#store-upstreams button[type=submit]')
    await page.waitForSelector('#store-upstreams .error')
    assert.match(await textOf(page, '#store-upstreams .error'), /forwardUrls\[0\].*\(400\)/)
    await page.$eval('#store-upstreams textarea', (e) => { e.value = '' })
    await page.type('#store-upstreams textarea', 'https://key:not-for-eyes@upstream.example.com/xapi\n\nhttps://second.example.com/xapi')
    await page.click('#store-upstreams button[type=submit]')
    await page.waitForFunction(() => /upstream\.example\.com/.test(document.querySelector('tr[data-store="beta"] td:nth-child(8)')?.textContent || ''))
    assert.equal((await cells('beta'))[7], 'https://upstream.example.com/xapihttps://second.example.com/xapi')
    assert.ok(!(await page.content()).includes('not-for-eyes'), 'no upstream credential in the page')
    assert.deepEqual((await lrs.http('/admin/stores/beta')).json.forwardTo, ['https://upstream.example.com/xapi', 'https://second.example.com/xapi'])
    assert.deepEqual(await accessibilityProblems(page), [])
    await screenshot(page, 'console-stores', { fullPage: true })
  })

  await t.test('export a store\'s statements to a file, and import the file into another store: stored, then held already, and a bad line listed', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'console-export-'))
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
    const cdp = await page.createCDPSession()
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir })
    await page.click('[data-export="acme"]')
    await page.waitForSelector('#store-exported')
    const file = path.join(dir, 'acme-statements.ndjson')
    assert.ok(await until(() => fs.existsSync(file) && fs.readFileSync(file, 'utf8').endsWith('\n')), 'the export is saved')
    const exported = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    const acmeIds = (await lrs.client('/statements', { auth: acme })).json.statements.map((s) => s.id)
    assert.deepEqual(exported.map((s) => s.id).sort(), [...acmeIds].sort())

    const importFile = async (name) => {
      await page.click('[data-import="beta"]')
      await page.waitForSelector('#import-statements input[type=file]')
      await (await page.$('#import-statements input[type=file]')).uploadFile(name)
      // the list is drawn again once the import is done: the next step's
      // clicks wait for that, not for a button about to be replaced
      // ("Node is detached from document", seen in CI)
      await page.$eval('#store-list table', (t) => { t.dataset.beforeImport = '1' })
      await page.click('#import-statements button[type=submit]')
      await page.waitForSelector('#import-result')
      await page.waitForFunction(() => document.querySelector('#store-list table') && !document.querySelector('#store-list table[data-before-import]'))
      return textOf(page, '#import-result')
    }
    assert.match(await importFile(file), /Stored 2, held already 0, rejected 0\./)
    await page.waitForFunction(() => document.querySelector('tr[data-store="beta"] td:nth-child(3)')?.textContent === '2')
    const betaAdmin = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: 'beta' } })
    assert.deepEqual((await lrs.client('/statements', { auth: [betaAdmin.json.key, betaAdmin.json.secret] })).json.statements.map((s) => s.id).sort(), [...acmeIds].sort())
    assert.deepEqual(await accessibilityProblems(page), [])

    const withBadLine = path.join(dir, 'bad.ndjson')
    fs.writeFileSync(withBadLine, fs.readFileSync(file, 'utf8') + HOSTILE_NAME + '\n')
    const again = await importFile(withBadLine)
    assert.match(again, /Stored 0, held already 2, rejected 1\./)
    assert.deepEqual(await page.$$eval('#import-result tbody td', (tds) => tds.map((td) => td.textContent)), ['3', 'not valid JSON'])
  })

  await t.test('delete a store\'s statements by stored time: a bad time is refused, the preview counts, the id typed confirms', async () => {
    await page.click('[data-delete-range="beta"]')
    await page.waitForSelector('#delete-statements')
    await fill(page, '#delete-statements input[name=until]', 'next tuesday')
    await page.click('#delete-statements button[type=submit]')
    await page.waitForSelector('#delete-statements .error')
    assert.match(await textOf(page, '#delete-statements .error'), /Stored at or before: not a date or time/)
    await fill(page, '#delete-statements input[name=until]', new Date(Date.now() + 60000).toISOString())
    await page.click('#delete-statements button[type=submit]')
    await page.waitForSelector('#deletion-preview')
    assert.match(await textOf(page, '#deletion-preview'), /This would remove 2 statements \(0 of them stored outside the range/)
    const button = '#deletion-preview button'
    assert.equal(await page.$eval(button, (b) => b.disabled), true)
    await page.type('#deletion-preview input[name=confirm]', 'beta')
    assert.deepEqual(await accessibilityProblems(page), [])
    await page.click(button)
    await page.waitForSelector('#statements-deleted')
    assert.match(await textOf(page, '#statements-deleted'), /Deleted 2 statements/)
    await page.waitForFunction(() => document.querySelector('tr[data-store="beta"] td:nth-child(3)')?.textContent === '0')
    assert.equal((await lrs.http('/admin/stores/beta')).json.statements, 0)
    assert.equal((await lrs.http('/admin/stores/acme')).json.statements, 2, 'another store keeps its own')
  })

  await t.test('delete: what goes first, the button waits for the id typed, then the store is gone from the list, the menu and its credentials', async () => {
    await page.click('[data-delete="acme"]')
    await page.waitForSelector('#confirm-store-deletion')
    assert.deepEqual(await page.$$eval('#store-deletion-preview li', (lis) => lis.map((li) => li.textContent)),
      ['statements: 2', 'documents: 1 (8 B)', 'attachments: 0 (0 B)', 'credentials: 1'])
    const disabled = () => page.$eval('#confirm-store-deletion button[type=submit]', (b) => b.disabled)
    assert.equal(await disabled(), true)
    await page.type('#confirm-store-deletion input[name=confirm]', 'acm')
    assert.equal(await disabled(), true, 'not with part of the id')
    assert.deepEqual(await accessibilityProblems(page), [])
    assert.equal((await lrs.client('/statements', { auth: acme })).status, 200, 'nothing deleted before the confirmation')
    await page.type('#confirm-store-deletion input[name=confirm]', 'e')
    assert.equal(await disabled(), false)
    await page.click('#confirm-store-deletion button[type=submit]')
    await page.waitForSelector('#store-deleted')
    assert.match(await textOf(page, '#store-deleted'), /Deleted acme: its 2 statements are being purged/)
    await page.waitForFunction(() => !document.querySelector('tr[data-store="acme"]'))
    await page.waitForFunction(() => ![...document.querySelectorAll('#store option')].some((o) => o.value === 'acme'))
    assert.equal(await page.$eval('#store', (s) => s.value), '', 'the menu leaves the deleted store for the credential\'s own')
    assert.deepEqual(await storeOptions(), ['', 'default', 'beta'])
    assert.ok(await until(async () => (await lrs.client('/statements', { auth: acme })).status === 401), 'its credential is gone (within LRS_CREDENTIAL_POLL_MS)')
    assert.equal((await lrs.http('/admin/stores/acme')).status, 404)
    // the other pages work on, for the credential's own store (the default one, without statements)
    await page.click('#nav a[href="#/statements"]')
    await page.waitForFunction(() => /No statements match/.test(document.querySelector('main')?.textContent || ''))
    assert.equal(await page.$('main .error'), null)
  })
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no injected script ran')
  assert.deepEqual(seen.dialogs, [])
  assert.deepEqual(seen.errors, [])
})

test('the console signs in through a token (so also with LRS_BASIC_AUTH=off) and holds no secret; a revoked credential ends the sign-in', { skip: browserSkip() }, async (t) => {
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const lrs = await startLrs({ LRS_BASIC_AUTH: 'off' })
  // the LRS refuses Basic: the bootstrap credential works here only through a token
  assert.equal((await lrs.http('/admin/credentials')).status, 401)
  const adminToken = await lrs.token()
  const made = await lrs.http('/admin/credentials', { method: 'POST', auth: null, headers: { Authorization: `Bearer ${adminToken}` }, body: { scopes: ['all', 'admin'] } })
  assert.equal(made.status, 201, made.text)
  assert.equal((await lrs.client('/statements', { method: 'POST', auth: null, headers: { Authorization: `Bearer ${adminToken}` }, body: statement() })).status, 200)

  const { page, seen } = await watchedPage(browser)
  const requests = []
  page.on('request', (req) => requests.push({ url: req.url(), authorization: req.headers().authorization || null }))
  await page.goto(lrs.url + '/console/#/statements')
  await submitSignIn(page, made.json.key, 'not-the-secret-at-all')
  await page.waitForFunction(() => /not a valid credential/.test(document.getElementById('sign-in-error').textContent))
  await submitSignIn(page, made.json.key, made.json.secret)
  await page.waitForSelector('#nav:not([hidden])')
  await page.waitForSelector('tbody')

  // the secret crossed once, to the token endpoint; every other request carries the token
  const api = requests.filter((r) => /\/(xapi|admin|oauth)\//.test(r.url))
  const basicSent = api.filter((r) => /^Basic /.test(r.authorization || ''))
  assert.ok(basicSent.length >= 1 && basicSent.every((r) => r.url.endsWith('/oauth/token')), JSON.stringify(basicSent.map((r) => r.url)))
  assert.ok(api.filter((r) => !r.url.endsWith('/oauth/token')).every((r) => /^Bearer /.test(r.authorization || '')))
  assert.deepEqual(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]), [0, 0, ''])

  // revoked: the next page asks to sign in again
  assert.equal((await lrs.http(`/admin/credentials/${made.json.key}`, { method: 'DELETE', auth: null, headers: { Authorization: `Bearer ${adminToken}` } })).status, 204)
  await new Promise((resolve) => setTimeout(resolve, 1000)) // LRS_CREDENTIAL_POLL_MS
  await page.click('#nav a[href="#/credentials"]')
  await page.waitForFunction(() => /sign-in has ended/.test(document.getElementById('sign-in-error')?.textContent || ''))
  assert.equal(await page.$eval('#nav', (e) => e.hidden), true)
  assert.deepEqual(seen.errors, [])
})

// Issue 55: the LRS's bare address is where a person given it starts.
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8'

test('GET /: a browser is sent to the console; an API client gets the links to the console, the API docs, /openapi.json and /xapi/about, each of which answers', async () => {
  const lrs = await startLrs()
  const asked = (accept) => fetch(lrs.url + '/', { redirect: 'manual', headers: accept ? { accept } : {} })

  const browser = await asked(BROWSER_ACCEPT)
  assert.equal(browser.status, 302)
  assert.equal(browser.headers.get('location'), '/console/')
  assert.match(browser.headers.get('vary'), /Accept/)

  for (const accept of ['application/json', '*/*', null]) {
    const res = await asked(accept)
    assert.equal(res.status, 200, `Accept: ${accept}`)
    assert.match(res.headers.get('content-type'), /^application\/json/)
    assert.match(res.headers.get('vary'), /Accept/)
    const { links } = await res.json()
    assert.deepEqual(Object.keys(links).sort(), ['about', 'console', 'docs', 'openapi'])
    for (const [name, path] of Object.entries(links)) {
      const target = await fetch(new URL(path, lrs.url))
      await target.arrayBuffer()
      assert.equal(target.status, 200, `${name}: ${path}`)
    }
  }
  // the document describes it, from its declaration
  const doc = await (await fetch(lrs.url + '/openapi.json')).json()
  assert.deepEqual(Object.keys(doc.paths['/'].get.responses).filter((s) => s < 400), ['200', '302'])
})

test('opening the LRS\'s address in a browser lands on the console\'s sign-in', { skip: browserSkip() }, async (t) => {
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const lrs = await startLrs()
  const { page, seen } = await watchedPage(browser)
  const res = await page.goto(lrs.url + '/', { waitUntil: 'load' })
  assert.equal(res.status(), 200)
  assert.equal(page.url(), lrs.url + '/console/')
  await page.waitForSelector('#sign-in input[name=key]')
  assert.deepEqual(seen.errors, [])
})
