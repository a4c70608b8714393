'use strict'

// The Forwarders page (/console/#/forwarders, issue 56) in a real browser,
// against a real LRS and a webhook receiver started here: a forwarder made
// through the form delivers and the page shows it healthy with what it
// delivered; pause and resume; a target that is down shows as retrying
// with its error; dead letters listed (the receiver's answer, a hostile
// verb display, as text), replayed and discarded; removal asked twice. A
// forwarder's name and a target's answer are anyone's text: shown as text,
// and nothing runs. A credential without admin gets the API's refusal.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const http = require('node:http')
const { startLrs, ADMIN } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { until } = require('../helpers/wait')
const { browserSkip, launchBrowser, watchedPage, accessibilityProblems, overflowWidth, screenshot, fill, textOf, submitSignIn, assertNothingRan } = require('../helpers/browser')

const KEY = crypto.randomBytes(32).toString('base64')
const HOSTILE_NAME = '<img src=x onerror="window.__pwned = \'name\'; alert(1)"><b>hooks</b>'
const HOSTILE_DISPLAY = '<img src=x onerror="window.__pwned = \'display\'; alert(2)">'
const PWNED = 'http://example.com/verbs/pwned'
const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed'
const PASSWORD = 'pw-never-shown-' + crypto.randomUUID()

// A webhook receiver: takes every delivery (204), except one holding a
// statement of the verb PWNED, which it refuses for good (400) with that
// statement's verb display as its answer.
function webhookReceiver () {
  const received = []
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const { statements } = JSON.parse(Buffer.concat(chunks).toString('utf8')).data
      const hostile = statements.find((s) => s.verb.id === PWNED)
      if (hostile) return res.writeHead(400, { 'Content-Type': 'text/plain' }).end(hostile.verb.display['en-US'])
      received.push(...statements.map((s) => s.id))
      res.writeHead(204).end()
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    url: `http://127.0.0.1:${server.address().port}/hooks/xapi`,
    host: `127.0.0.1:${server.address().port}`,
    received,
    close: () => new Promise((resolve) => server.close(resolve))
  })))
}

// A port nothing listens on (a target that is down).
async function closedPort () {
  const server = http.createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

// A forwarder's row as a person reads it: { name, target, filter, state, 'last-error', delivered, lag, dead }.
const rowOf = (page, id) => page.$eval(`tr[data-forwarder="${id}"]`, (tr) => Object.fromEntries([...tr.querySelectorAll('td:not(.actions)')].map((td) => [td.className, td.textContent])))

test('the Forwarders page', { skip: browserSkip() }, async (t) => {
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const receiver = await webhookReceiver()
  t.after(() => receiver.close())
  const lrs = await startLrs({ LRS_SECRETS_KEY: KEY })
  const post = async (body) => {
    const res = await lrs.client('/statements', { method: 'POST', body })
    assert.equal(res.status, 200, res.text)
    return res.json
  }
  const forwarders = async () => (await lrs.http('/admin/forwarders')).json.forwarders

  const { page, seen } = await watchedPage(browser)
  const nothingRan = () => assertNothingRan(page, seen)
  // what the page says of forwarder `id`, once `check(row)` holds (the page reads the list every few seconds)
  const rowShows = (id, check, within = 20000) => until(async () => {
    const row = await rowOf(page, id).catch(() => null)
    return row !== null && check(row)
  }, { within, every: 200 })

  let hook // the webhook forwarder made through the form
  await t.test('signed in, the page lists no forwarder; the form shows the fields of the chosen target and auth only', async () => {
    await page.goto(lrs.url + '/console/#/forwarders')
    await submitSignIn(page, ADMIN.user, ADMIN.password)
    await page.waitForSelector('#no-forwarders:not([hidden])')
    assert.equal(await textOf(page, 'main h1'), 'Forwarders')
    assert.equal(await page.$eval('#nav a[href="#/forwarders"]', (a) => a.getAttribute('aria-current')), 'page')
    const shown = () => page.$$eval('#create-forwarder input', (is) => is.filter((i) => i.offsetParent !== null).map((i) => i.name))
    assert.deepEqual(await shown(), ['name', 'url', 'batchSize', 'verb', 'activity', 'registration', 'related_agents', 'related_activities', 'noVoiding'], 'an LRS without auth')
    await page.select('#create-forwarder select[name=authType]', 'oauth2')
    assert.deepEqual((await shown()).slice(3, 7), ['tokenUrl', 'clientId', 'clientSecret', 'scope'])
    await page.select('#create-forwarder select[name=authType]', 'basic')
    assert.deepEqual((await shown()).slice(3, 5), ['username', 'password'])
    await page.select('#create-forwarder select[name=kind]', 'webhook')
    assert.equal(await page.$eval('#create-forwarder select[name=authType]', (s) => s.offsetParent), null, 'a webhook takes no auth')
    assert.ok(!(await shown()).includes('password'))
    assert.deepEqual(await accessibilityProblems(page), [])
  })

  await t.test('the API\'s refusal of the form is shown as its message, and an agent that is not JSON is said before asking', async () => {
    await fill(page, '#create-forwarder input[name=name]', 'bad')
    await fill(page, '#create-forwarder input[name=url]', receiver.url)
    await fill(page, '#create-forwarder input[name=verb]', 'not an iri')
    await page.click('#create-forwarder button[type=submit]')
    await page.waitForSelector('#create-forwarder-message .error')
    assert.equal(await textOf(page, '#create-forwarder-message .error'), 'filter.verb must be an IRI (400)')
    await fill(page, '#create-forwarder input[name=verb]', COMPLETED)
    await fill(page, '#create-forwarder textarea[name=agent]', '{mbox: ada}')
    await page.click('#create-forwarder button[type=submit]')
    await page.waitForFunction(() => /agent is not JSON/.test(document.querySelector('#create-forwarder-message .error')?.textContent))
    assert.deepEqual(await forwarders(), [], 'nothing made')
  })

  await t.test('a webhook made through the form (its name HTML, shown as text) gets its secret shown once, delivers, and shows healthy with the count delivered', async () => {
    await page.$eval('#create-forwarder', (f) => f.reset())
    await page.select('#create-forwarder select[name=kind]', 'webhook')
    await fill(page, '#create-forwarder input[name=name]', HOSTILE_NAME)
    await fill(page, '#create-forwarder input[name=url]', receiver.url)
    await fill(page, '#create-forwarder input[name=batchSize]', '10')
    await page.click('#create-forwarder button[type=submit]')
    await page.waitForSelector('#webhook-secret')
    assert.match(await textOf(page, '#webhook-secret'), /^whsec_[A-Za-z0-9+/=]+$/)
    assert.equal(await textOf(page, '#create-forwarder-message [role=status]'), `Created ${HOSTILE_NAME}. Statements stored from now on that its filter picks are forwarded.`)
    ;[hook] = await forwarders()
    assert.equal(hook.batchSize, 10)
    await page.waitForSelector(`tr[data-forwarder="${hook.id}"]`)
    const row = await rowOf(page, hook.id)
    assert.deepEqual(row, { name: HOSTILE_NAME, target: `Webhook ${receiver.host}`, filter: 'every statement', state: 'healthy', 'last-error': '—', delivered: '0', lag: '0 s, 0 queued', dead: '0' })
    await nothingRan()

    const ids = await post([statement(), statement(), statement()])
    assert.ok(await until(() => ids.every((id) => receiver.received.includes(id))), 'delivered')
    assert.ok(await rowShows(hook.id, (r) => r.delivered === '3' && r.state === 'healthy' && r.lag === '0 s, 0 queued'), 'the page shows what was delivered, by itself')
    assert.equal(await overflowWidth(page), 0, 'the list fits the window')
    await nothingRan()
  })

  await t.test('a statement refused for good: its dead letter lists the receiver\'s answer (an <img onerror> verb display) as text; replay, and discard on a second click', async () => {
    const [id] = await post(statement({ verb: { id: PWNED, display: { 'en-US': HOSTILE_DISPLAY } } }))
    assert.ok(await rowShows(hook.id, (r) => r.dead === '1'), 'the dead letter counted')
    await page.click(`tr[data-forwarder="${hook.id}"] button[data-action=dead-letters]`)
    await page.waitForSelector(`#dead-letters tr[data-statement="${id}"]`)
    assert.equal(await textOf(page, '#dead-letters h2'), `Dead letters of ${HOSTILE_NAME}`)
    const cells = await page.$$eval(`#dead-letters tr[data-statement="${id}"] td`, (tds) => tds.map((td) => td.textContent))
    assert.deepEqual(cells.slice(0, 3), [id, '400', HOSTILE_DISPLAY])
    assert.equal(await page.$eval(`#dead-letters tr[data-statement="${id}"] a`, (a) => a.getAttribute('href')), '#/statements?statementId=' + id)
    await nothingRan()
    assert.deepEqual(await accessibilityProblems(page), [])
    await screenshot(page, 'console-forwarders', { fullPage: true })

    await page.click('#replay-dead-letters')
    await page.waitForFunction(() => /put back in the queue/.test(document.getElementById('dead-letter-status').textContent))
    assert.equal(await textOf(page, '#dead-letter-status'), `1 put back in the queue of ${HOSTILE_NAME}.`)
    // refused again: a dead letter again
    assert.ok(await until(async () => (await lrs.http(`/admin/forwarders/${hook.id}/dead-letters`)).json.deadLetters.length === 1), 'refused again')
    await page.click('#close-dead-letters')
    assert.equal(await page.$('#dead-letters h2'), null)
    await page.click(`tr[data-forwarder="${hook.id}"] button[data-action=dead-letters]`)
    await page.waitForSelector(`#dead-letters tr[data-statement="${id}"]`)
    await page.click('#discard-dead-letters')
    assert.match(await textOf(page, '#dead-letter-status'), /for good; the statements stay stored\.$/)
    assert.equal((await lrs.http(`/admin/forwarders/${hook.id}/dead-letters`)).json.deadLetters.length, 1, 'one click discards nothing')
    await page.click('#discard-dead-letters')
    await page.waitForFunction(() => /discarded\.$/.test(document.getElementById('dead-letter-status').textContent))
    assert.equal(await textOf(page, '#dead-letter-status'), `1 dead letter of ${HOSTILE_NAME} discarded.`)
    await page.waitForFunction(() => document.querySelector('#dead-letters p:last-child')?.textContent === 'None.')
    assert.equal((await lrs.http(`/admin/forwarders/${hook.id}/dead-letters`)).json.deadLetters.length, 0)
    assert.ok(await rowShows(hook.id, (r) => r.dead === '0'))
    await nothingRan()
  })

  await t.test('paused, it shows paused and queues what is stored; resumed, it delivers it', async () => {
    await page.click(`tr[data-forwarder="${hook.id}"] button[data-action=pause]`)
    assert.ok(await rowShows(hook.id, (r) => r.state === 'paused', 5000), 'shown paused')
    assert.equal(await page.$eval(`tr[data-forwarder="${hook.id}"]`, (tr) => tr.dataset.status), 'paused')
    assert.equal(await textOf(page, `tr[data-forwarder="${hook.id}"] button[data-action=resume]`), 'Resume')
    const [id] = await post(statement())
    assert.ok(await rowShows(hook.id, (r) => / 1 queued$/.test(r.lag)), 'queued while paused')
    assert.ok(!receiver.received.includes(id), 'not delivered while paused')
    await page.click(`tr[data-forwarder="${hook.id}"] button[data-action=resume]`)
    assert.ok(await until(() => receiver.received.includes(id)), 'delivered once resumed')
    assert.ok(await rowShows(hook.id, (r) => r.state === 'healthy' && r.delivered === '4' && r.lag === '0 s, 0 queued'))
    await nothingRan()
  })

  let down // an LRS forwarder whose target is down
  await t.test('an LRS target that is down: made with basic auth and a filter, it shows retrying since when, with its last error; neither its password nor its URL\'s path is shown', async () => {
    const port = await closedPort()
    await page.$eval('#create-forwarder', (f) => f.reset())
    await fill(page, '#create-forwarder input[name=name]', 'warehouse')
    await fill(page, '#create-forwarder input[name=url]', `http://127.0.0.1:${port}/private-path/xapi`)
    await page.select('#create-forwarder select[name=authType]', 'basic')
    await fill(page, '#create-forwarder input[name=username]', 'wh-user')
    await fill(page, '#create-forwarder input[name=password]', PASSWORD)
    await fill(page, '#create-forwarder input[name=verb]', COMPLETED)
    await fill(page, '#create-forwarder textarea[name=agent]', '{"mbox": "mailto:ada@example.com"}')
    await page.click('#create-forwarder input[name=noVoiding]')
    await page.click('#create-forwarder button[type=submit]')
    await page.waitForFunction(() => /^Created warehouse\./.test(document.querySelector('#create-forwarder-message [role=status]')?.textContent))
    down = (await forwarders()).find((f) => f.name === 'warehouse')
    assert.deepEqual(down.target.auth, { type: 'basic', username: 'wh-user' })
    assert.deepEqual(down.filter, { verb: COMPLETED, agent: { mbox: 'mailto:ada@example.com' }, voiding: false })
    await page.waitForSelector(`tr[data-forwarder="${down.id}"]`)
    const row = await rowOf(page, down.id)
    assert.equal(row.target, `LRS 127.0.0.1:${port}`)
    assert.equal(row.filter, `verb ${COMPLETED}; agent {"mbox":"mailto:ada@example.com"}; no voiding statements`)

    await post(statement({ actor: { objectType: 'Agent', mbox: 'mailto:ada@example.com' } }))
    assert.ok(await rowShows(down.id, (r) => r.state.startsWith('retrying since ')), 'shown retrying')
    const now = await rowOf(page, down.id)
    assert.match(now.state, /^retrying since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    assert.match(now['last-error'], /^upstream unreachable \(ECONNREFUSED\)\d{4}-/, 'its last error, and when')
    assert.match(now.lag, / 1 queued$/)
    assert.equal(await page.$eval(`tr[data-forwarder="${down.id}"]`, (tr) => tr.dataset.status), 'retrying')
    assert.equal(await rowOf(page, hook.id).then((r) => r.state), 'healthy', 'the other one is healthy still')
    const html = await page.content()
    assert.ok(!html.includes(PASSWORD), 'the password is nowhere in the page')
    assert.ok(!(await textOf(page, '#forwarders')).includes('private-path'), 'the target is shown as its host')
    assert.deepEqual(await accessibilityProblems(page), [])
    assert.equal(await overflowWidth(page), 0)
    await nothingRan()
  })

  await t.test('remove asks once more; confirmed, the row goes and the API lists it no more', async () => {
    const remove = `tr[data-forwarder="${down.id}"] button[data-action=remove]`
    await page.click(remove)
    assert.equal(await textOf(page, remove), 'Confirm remove')
    assert.match(await textOf(page, '#forwarder-status'), /^Removing warehouse drops its queue/)
    // the list read again meanwhile keeps the question asked
    await new Promise((resolve) => setTimeout(resolve, 3500))
    assert.equal(await textOf(page, remove), 'Confirm remove')
    assert.equal((await forwarders()).length, 2, 'one click removes nothing')
    // Cancel: asked again from the start
    await page.click(`tr[data-forwarder="${down.id}"] button[data-action=cancel-remove]`)
    assert.equal(await textOf(page, remove), 'Remove')
    await page.click(remove)
    await page.click(remove)
    await page.waitForFunction((id) => !document.querySelector(`tr[data-forwarder="${id}"]`), {}, down.id)
    assert.equal(await textOf(page, '#forwarder-status'), 'Removed warehouse.')
    assert.deepEqual((await forwarders()).map((f) => f.id), [hook.id])
    await new Promise((resolve) => setTimeout(resolve, 3500)) // read again: it stays gone
    assert.equal(await page.$(`tr[data-forwarder="${down.id}"]`), null)
    assert.ok(await page.$(`tr[data-forwarder="${hook.id}"]`))
    await nothingRan()
  })

  await t.test('the list is read again only while the page is shown', async () => {
    const reads = []
    const count = (r) => { if (new URL(r.url()).pathname === '/admin/forwarders') reads.push(Date.now()) }
    page.on('request', count)
    try {
      await new Promise((resolve) => setTimeout(resolve, 3500))
      assert.ok(reads.length >= 1, 'read again while shown')
      await page.click('#nav a[href="#/erasure"]')
      await page.waitForSelector('#find-agent')
      const left = reads.length
      await new Promise((resolve) => setTimeout(resolve, 4000))
      assert.ok(reads.length <= left + 1, `no more reads once left (${reads.length - left})`) // one may have been on its way
    } finally {
      page.off('request', count)
    }
  })

  await t.test('a credential without admin gets the API\'s refusal on the page, and nothing to act on', async (st) => {
    const [key, secret] = ['ops-' + crypto.randomUUID().slice(0, 8), 'a-long-enough-secret']
    assert.equal((await lrs.http('/admin/credentials', { method: 'POST', body: { key, secret, scopes: ['admin'] } })).status, 201)
    const { page: ops, seen: opsSeen } = await watchedPage(browser)
    st.after(() => ops.close())
    await ops.goto(lrs.url + '/console/#/forwarders')
    await submitSignIn(ops, key, secret)
    await ops.waitForSelector(`tr[data-forwarder="${hook.id}"]`)
    // its admin scope taken away while it is signed in: the page, reading again, shows the refusal
    assert.equal((await lrs.http('/admin/credentials/' + key, { method: 'PUT', body: { scopes: ['statements/read'] } })).status, 200)
    await ops.waitForFunction(() => /needs one of the scopes admin; the credential has statements\/read/.test(document.getElementById('forwarders-error').textContent), { timeout: 15000 })
    assert.match(await textOf(ops, '#forwarders-error .error'), /needs one of the scopes admin; the credential has statements\/read.* \(403\)$/, 'the API\'s message')
    assert.equal(await ops.$$eval('tr[data-forwarder]', (trs) => trs.length), 0, 'no forwarder listed')
    assert.equal(await ops.$eval('#create-forwarder', (f) => f.hidden), true, 'no form to fill in vain')
    assert.equal(await textOf(ops, 'main h1'), 'Forwarders', 'the page, not an error page')
    assert.deepEqual(await accessibilityProblems(ops), [])
    assert.deepEqual(opsSeen.errors, [])
  })
})
