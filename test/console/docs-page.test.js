'use strict'

// GET /docs: the API docs, Swagger UI from npm served by the LRS itself,
// rendering /openapi.json in a real browser, under the pages' CSP.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { startLrs } = require('../helpers/lrs')
const { browserSkip, launchBrowser, watchedPage, accessibilityProblems, screenshot } = require('../helpers/browser')

// One LRS and one browser for the file, closed when it ends.
test('the API docs page in a browser', { skip: browserSkip() }, async (t) => {
  const browser = await launchBrowser()
  t.after(() => browser.close())
  const lrs = await startLrs()

  await t.test('/docs lists the operations of /openapi.json, with nothing loaded from elsewhere and no CSP violation', async () => {
    const { page, seen } = await watchedPage(browser)
    const requests = []
    page.on('request', (r) => requests.push(r.url()))
    const res = await page.goto(lrs.url + '/docs/', { waitUntil: 'load' })
    assert.equal(res.status(), 200)
    assert.match(res.headers()['content-security-policy'], /script-src 'self'/)
    await page.waitForSelector('.opblock-summary-path', { timeout: 15000 })
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.textContent.trim()))
    for (const p of ['/xapi/statements', '/admin/credentials', '/openapi.json']) assert.ok(paths.some((t) => t.includes(p)), `${p} is listed`)
    const doc = await (await fetch(lrs.url + '/openapi.json')).json()
    const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item).filter((m) => ['get', 'put', 'post', 'delete', 'head', 'options'].includes(m)))
    assert.equal(await page.$$eval('.opblock', (els) => els.length), operations.length, 'one block per documented operation')
    assert.deepEqual(requests.filter((u) => !u.startsWith(lrs.url) && !u.startsWith('data:')), [], 'every request stays on the LRS')
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), [])
    assert.deepEqual(seen.errors, [])
    assert.deepEqual(await accessibilityProblems(page), [])
    await screenshot(page, 'docs')
    await page.close()
  })
})
