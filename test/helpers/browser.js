'use strict'

// The browser tests: Debian's `chromium` (or another Chromium found on
// PATH, or the one LRS_TEST_CHROMIUM names) driven by puppeteer-core; no
// browser is downloaded. Without one, a browser test file skips with one
// line saying how to run it, unless LRS_TEST_BROWSER=required (CI sets it:
// .ci/run), where a missing browser fails the run.

const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']

function findChromium () {
  if (process.env.LRS_TEST_CHROMIUM) return process.env.LRS_TEST_CHROMIUM
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    for (const name of NAMES) {
      const file = path.join(dir, name)
      try {
        fs.accessSync(file, fs.constants.X_OK)
        return file
      } catch {}
    }
  }
  return null
}

const REQUIRED = process.env.LRS_TEST_BROWSER === 'required'

// The `skip` option of a browser test file's describe(): false when a
// browser is there (or required: launching then fails with the reason).
function browserSkip () {
  if (findChromium() || REQUIRED) return false
  return 'browser tests skipped: no chromium on PATH (apt-get install chromium, or LRS_TEST_CHROMIUM=/path/to/chrome); LRS_TEST_BROWSER=required makes them required'
}

async function launchBrowser () {
  const executablePath = findChromium()
  if (!executablePath) throw new Error('LRS_TEST_BROWSER=required but no chromium on PATH (apt-get install chromium, or set LRS_TEST_CHROMIUM)')
  const puppeteer = require('puppeteer-core')
  return puppeteer.launch({
    executablePath,
    headless: true,
    // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-extensions'],
    defaultViewport: { width: 1100, height: 760 }
  })
}

// A page that records what must not happen: dialogs (an injected alert()),
// CSP violations, uncaught errors.
async function watchedPage (browser) {
  const page = await browser.newPage()
  const seen = { dialogs: [], errors: [] }
  page.on('dialog', async (d) => {
    seen.dialogs.push(d.message())
    await d.dismiss()
  })
  page.on('pageerror', (err) => seen.errors.push(err.message))
  await page.evaluateOnNewDocument(() => {
    window.__cspViolations = []
    document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`))
  })
  return { page, seen }
}

// axe-core, evaluated through the DevTools protocol (the page's CSP allows
// no inline script, and it should not have to): the serious and critical
// findings on the page as it is now.
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
async function accessibilityProblems (page) {
  await page.evaluate(AXE)
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }))
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
}

// How far the page is wider than the window (px): 0 when nothing pushes it
// sideways (a long IRI in a table cell must wrap, not push the table's
// other columns out of sight).
async function overflowWidth (page) {
  return page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth))
}

// With LRS_TEST_SCREENSHOTS=1, the page as it is now goes to
// docs/screenshots/<name>.png (the README's and docs/console.md's images):
// the window, or with fullPage the whole page however long.
async function screenshot (page, name, { fullPage = false } = {}) {
  if (process.env.LRS_TEST_SCREENSHOTS !== '1') return
  const dir = path.join(__dirname, '../../docs/screenshots')
  fs.mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: path.join(dir, name + '.png'), fullPage })
}

// What a person does and reads on a page: types into a field (emptied
// first), reads an element's text, signs in to the console with a key.
async function fill (page, selector, value) {
  await page.$eval(selector, (e) => { e.value = '' })
  await page.type(selector, value)
}

const textOf = (page, selector) => page.$eval(selector, (e) => e.textContent)

async function submitSignIn (page, key, secret) {
  await fill(page, '#sign-in input[name=key]', key)
  await fill(page, '#sign-in input[name=secret]', secret)
  await page.click('#sign-in button[type=submit]')
}

// What hostile data shown by the console must not have done (`seen`:
// watchedPage's): run a script, open a dialog, throw, break the CSP; and,
// with `elements`, become elements of the page (an img, script, b or
// iframe in main).
async function assertNothingRan (page, seen, { elements = true } = {}) {
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no injected script ran')
  assert.deepEqual(seen.dialogs, [], 'no dialog opened')
  assert.deepEqual(seen.errors, [])
  assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'no CSP violation')
  if (elements) assert.equal(await page.$$eval('main img, main script, main b, main iframe', (els) => els.length), 0, 'no element made from the data')
}

module.exports = { assertNothingRan, findChromium, browserSkip, launchBrowser, watchedPage, accessibilityProblems, overflowWidth, screenshot, fill, textOf, submitSignIn }
