'use strict'

// The Reports pages (/console/#/reports, #/reports/<id>, #/dashboard;
// issue 57) in a real browser against a real LRS: statements of two verbs
// (and one whose verb id is odd), several learners, on several days; a
// report saved through the form (day, statements) opens with the table
// POST /admin/reports/run answers and a line chart; a report by verb gets
// bars; Download CSV fetches the CSV; a report's name and a verb id are
// anyone's text, shown as text; the dashboard shows a card per report and
// one failing leaves the others shown; removal asked twice; a credential
// without the scope gets the API's 403 message.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, ADMIN } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { until } = require('../helpers/wait')
const { browserSkip, launchBrowser, watchedPage, accessibilityProblems, fill, textOf, submitSignIn, assertNothingRan } = require('../helpers/browser')
const { DIMENSIONS, MEASURES } = require('../../src/reports/report-definition')

const HOSTILE_NAME = '<img src=x onerror="window.__pwned = \'name\'; alert(1)"><b>by verb</b>'
const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed'
const EXPERIENCED = 'http://adlnet.gov/expapi/verbs/experienced'
const ODD_VERB = 'javascript:alert(document.domain)//\u202eevil'
const DAYS = ['2026-03-02', '2026-03-03', '2026-03-05']

const tableRows = (page, selector) => page.$$eval(selector + ' tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)))
const asText = (rows) => rows.map((r) => r.map((v) => (v === null ? '' : String(v))))

test('the Reports pages', { skip: browserSkip() }, async (t) => {
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const lrs = await startLrs()
  const learners = ['ada', 'bob', 'cy', 'dee'].map((n) => ({ objectType: 'Agent', mbox: `mailto:${n}@example.com` }))
  const batch = []
  DAYS.forEach((day, d) => {
    for (let i = 0; i <= d + 1; i++) {
      batch.push(statement({ actor: learners[i % learners.length], verb: { id: i % 2 ? EXPERIENCED : COMPLETED }, timestamp: `${day}T1${i}:00:00Z` }))
    }
  })
  batch.push(statement({ actor: learners[0], verb: { id: ODD_VERB, display: { 'en-US': '<img src=x onerror=alert(3)>' } }, timestamp: `${DAYS[1]}T09:00:00Z` }))
  const posted = await lrs.client('/statements', { method: 'POST', body: batch })
  assert.equal(posted.status, 200, posted.text)
  const saved = async () => (await lrs.http('/admin/reports')).json.reports
  const run = async (report, headers = {}) => lrs.http('/admin/reports/run', { method: 'POST', body: report, headers })

  const { page, seen } = await watchedPage(browser)
  const nothingRan = () => assertNothingRan(page, seen)

  let perDay
  await t.test('a report saved through the form (groupBy day, measures statements) is listed with what it groups and measures', async () => {
    await page.goto(lrs.url + '/console/#/reports')
    await submitSignIn(page, ADMIN.user, ADMIN.password)
    await page.waitForSelector('#no-reports')
    assert.equal(await textOf(page, 'main h1'), 'Reports')
    assert.equal(await page.$eval('#nav a[href="#/reports"]', (a) => a.getAttribute('aria-current')), 'page')
    // the form offers what the server takes: its lists are the definition's (kept in step by hand)
    assert.deepEqual(await page.$$eval('#create-report select[name=groupBy1] option', (os) => os.map((o) => o.value).filter(Boolean)), DIMENSIONS)
    assert.deepEqual(await page.$$eval('#create-report input[name=measure]', (is) => is.map((i) => i.value)), MEASURES)
    // the API's refusal, as its message
    await fill(page, '#create-report input[name=name]', 'bad')
    await page.click('#create-report input[name=measure][value=statements]')
    await fill(page, '#create-report input[name=verb]', 'not an iri')
    await page.click('#create-report button[type=submit]')
    await page.waitForSelector('#create-report-message .error')
    assert.equal(await textOf(page, '#create-report-message .error'), 'filter.verb must be an IRI (400)')
    assert.deepEqual(await saved(), [])

    await page.$eval('#create-report', (f) => f.reset())
    await fill(page, '#create-report input[name=name]', 'Per day')
    await page.select('#create-report select[name=groupBy1]', 'day')
    await page.click('#create-report input[name=measure][value=statements]')
    await page.click('#create-report button[type=submit]')
    await page.waitForFunction(() => /^Saved Per day/.test(document.querySelector('#create-report-message [role=status]')?.textContent))
    ;[perDay] = await saved()
    assert.deepEqual(perDay.report, { groupBy: ['day'], measures: ['statements'] })
    await page.waitForSelector(`tr[data-report="${perDay.id}"]`)
    assert.deepEqual((await tableRows(page, '#reports'))[0].slice(0, 4), ['Per day', 'statements by day', 'every statement', 'UTC'])
    assert.deepEqual(await accessibilityProblems(page), [])
    await nothingRan()
  })

  await t.test('its page: the table as POST /admin/reports/run answers it, a line chart, the page\'s address to share', async () => {
    await page.click(`tr[data-report="${perDay.id}"] a`)
    await page.waitForSelector('#report-result table')
    assert.equal(await textOf(page, 'main h1'), 'Per day')
    assert.match(await page.evaluate(() => window.location.hash), new RegExp(`^#/reports/${perDay.id}`))
    const answer = (await run(perDay.report)).json
    assert.deepEqual(answer.columns, ['day', 'statements'])
    assert.deepEqual(answer.rows, [[DAYS[0], 2], [DAYS[1], 4], [DAYS[2], 4]])
    assert.deepEqual(await page.$$eval('#report-result thead th', (ths) => ths.map((th) => th.textContent)), answer.columns)
    assert.deepEqual(await tableRows(page, '#report-result'), asText(answer.rows))
    // statements per day: counted per hour by the store, which the page says
    assert.match(await textOf(page, '#report-result caption'), /^3 rows; 10 statements counted from the store's hourly counts, in \d+ ms$/)
    assert.equal(await page.$eval('#report-result svg', (s) => s.dataset.kind), 'line')
    assert.equal(await page.$$eval('#report-result svg polyline', (ps) => ps.length), 1)
    assert.equal(await page.$$eval('#report-result svg circle', (cs) => cs.length), 3)
    const labels = await page.$$eval('#report-result svg text', (ts) => ts.map((t) => t.textContent))
    for (const day of DAYS) assert.ok(labels.includes(day), `the axis names ${day}`)
    assert.equal(await page.$('#truncated'), null, 'not truncated')
    assert.equal(await textOf(page, '#share-link'), await page.evaluate(() => window.location.href))
    assert.deepEqual(await accessibilityProblems(page), [])
    await nothingRan()
  })

  await t.test('Download CSV fetches the run with Accept: text/csv and saves the CSV the API gives from a Blob URL', async () => {
    // what the page saves: the Blob it makes a URL of
    await page.evaluate(() => {
      const made = URL.createObjectURL
      window.__csv = null
      URL.createObjectURL = (blob) => { blob.text().then((text) => { window.__csv = text }); return made.call(URL, blob) }
    })
    const [request] = await Promise.all([
      page.waitForRequest((r) => r.url().endsWith(`/admin/reports/${perDay.id}/run`) && r.headers().accept === 'text/csv'),
      page.click('#download-csv')
    ])
    assert.equal(request.method(), 'POST')
    await page.waitForFunction(() => /^Downloaded Per-day\.csv/.test(document.getElementById('report-status').textContent))
    await page.waitForFunction(() => window.__csv !== null)
    const expected = await run(perDay.report, { Accept: 'text/csv' })
    assert.match(expected.headers.get('content-type'), /^text\/csv/)
    assert.equal(expected.text, `day,statements\r\n${DAYS[0]},2\r\n${DAYS[1]},4\r\n${DAYS[2]},4\r\n`)
    assert.equal(await page.evaluate(() => window.__csv), expected.text)
    await nothingRan()
  })

  let byVerb
  await t.test('a report by verb named with HTML: its name and the odd verb id as text, a bar per row', async () => {
    await page.click('#nav a[href="#/reports"]')
    await page.waitForSelector('#create-report')
    await fill(page, '#create-report input[name=name]', HOSTILE_NAME)
    await page.select('#create-report select[name=groupBy1]', 'verb')
    await page.click('#create-report input[name=measure][value=statements]')
    await page.click('#create-report input[name=measure][value=learners]')
    await page.click('#create-report button[type=submit]')
    await page.waitForFunction(() => /^Saved /.test(document.querySelector('#create-report-message [role=status]')?.textContent))
    byVerb = (await saved()).find((r) => r.name === HOSTILE_NAME)
    assert.deepEqual(byVerb.report, { groupBy: ['verb'], measures: ['statements', 'learners'] })
    await page.waitForSelector(`tr[data-report="${byVerb.id}"]`)
    assert.equal(await textOf(page, `tr[data-report="${byVerb.id}"] td.name`), HOSTILE_NAME)
    await nothingRan()

    await page.click(`tr[data-report="${byVerb.id}"] a`)
    await page.waitForSelector('#report-result table')
    assert.equal(await textOf(page, 'main h1'), HOSTILE_NAME)
    const answer = (await run(byVerb.report)).json
    assert.equal(answer.rows.length, 3)
    assert.deepEqual(await tableRows(page, '#report-result'), asText(answer.rows))
    assert.ok((await tableRows(page, '#report-result')).some((r) => r[0] === ODD_VERB), 'the odd verb id, as text')
    assert.equal(await page.$$eval('#report-result a[href^="javascript"]', (as) => as.length), 0)
    assert.equal(await page.$eval('#report-result svg', (s) => s.dataset.kind), 'bar')
    assert.equal(await page.$$eval('#report-result svg rect', (rs) => rs.length), 3)
    assert.ok((await page.$$eval('#report-result svg text', (ts) => ts.map((t) => t.textContent))).some((s) => s.startsWith('javascript:')), 'the odd verb labels its bar as text')
    assert.deepEqual(await accessibilityProblems(page), [])
    await nothingRan()
  })

  await t.test('the dashboard: a card per saved report with its chart; one that fails shows its message, the others still show', async () => {
    const funnel = (await lrs.http('/admin/reports', { method: 'POST', body: { name: 'Funnel', report: { shape: 'completionFunnel' } } })).json
    await page.setRequestInterception(true)
    const fail = (req) => {
      if (req.url().endsWith(`/admin/reports/${funnel.id}/run`)) return req.respond({ status: 503, contentType: 'application/json', body: JSON.stringify({ code: 'LRS_ERR_REPORT_TIMEOUT', message: 'the report took too long' }) })
      req.continue()
    }
    page.on('request', fail)
    try {
      await page.click('#nav a[href="#/dashboard"]')
      await page.waitForFunction(() => document.querySelectorAll('#dashboard .report-card[data-state]').length === 3)
    } finally {
      page.off('request', fail)
      await page.setRequestInterception(false)
    }
    assert.equal(await page.$$eval('#dashboard .report-card', (cs) => cs.length), (await saved()).length)
    assert.equal(await textOf(page, `.report-card[data-report="${funnel.id}"] .error`), 'the report took too long (503)')
    assert.equal(await page.$eval(`.report-card[data-report="${perDay.id}"] svg`, (s) => s.dataset.kind), 'line')
    assert.equal(await page.$eval(`.report-card[data-report="${byVerb.id}"] svg`, (s) => s.dataset.kind), 'bar')
    assert.equal(await textOf(page, `.report-card[data-report="${byVerb.id}"] h2`), HOSTILE_NAME)
    assert.deepEqual(await accessibilityProblems(page), [])
    await nothingRan()
  })

  await t.test('remove asks once more; confirmed, the report goes', async () => {
    await page.click('#nav a[href="#/reports"]')
    const remove = `tr[data-report="${perDay.id}"] button[data-action=remove]`
    await page.waitForSelector(remove)
    await page.click(remove)
    assert.equal(await textOf(page, remove), 'Confirm remove')
    assert.match(await textOf(page, '#report-status'), /^Removing Per day removes the saved report/)
    assert.equal((await saved()).length, 3, 'one click removes nothing')
    await page.click(`tr[data-report="${perDay.id}"] button[data-action=cancel-remove]`)
    assert.equal(await textOf(page, remove), 'Remove')
    await page.click(remove)
    await page.click(remove)
    await page.waitForFunction((id) => !document.querySelector(`tr[data-report="${id}"]`), {}, perDay.id)
    assert.equal(await textOf(page, '#report-status'), 'Removed Per day.')
    assert.ok(!(await saved()).some((r) => r.id === perDay.id))
    await nothingRan()
  })

  await t.test('a credential without the reports or admin scope gets the API\'s 403 message', async (st) => {
    const [key, secret] = ['bi-' + crypto.randomUUID().slice(0, 8), 'a-long-enough-secret']
    assert.equal((await lrs.http('/admin/credentials', { method: 'POST', body: { key, secret, scopes: ['admin'] } })).status, 201)
    const { page: other } = await watchedPage(browser)
    st.after(() => other.close())
    await other.goto(lrs.url + '/console/#/reports')
    await submitSignIn(other, key, secret)
    await other.waitForSelector(`tr[data-report="${byVerb.id}"]`)
    assert.equal((await lrs.http('/admin/credentials/' + key, { method: 'PUT', body: { scopes: ['statements/write'] } })).status, 200)
    assert.ok(await until(async () => {
      await other.evaluate(() => { window.location.hash = window.location.hash.startsWith('#/reports') ? '#/dashboard' : '#/reports' })
      await new Promise((resolve) => setTimeout(resolve, 300))
      const error = await other.$eval('#reports-error .error, #dashboard-error .error', (e) => e.textContent).catch(() => '')
      return /\(403\)$/.test(error)
    }, { within: 15000, every: 200 }), 'the 403 shown')
    assert.match(await other.$eval('#reports-error .error, #dashboard-error .error', (e) => e.textContent), /needs one of the scopes .*reports.* \(403\)$/)
  })
})
