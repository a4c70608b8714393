'use strict'

// Issue 55: installing the LRS sends nothing anywhere. swagger-ui-dist
// depends on @scarf/scarf, whose install script reports the install to
// scarf.sh unless the root package.json opts out
// (`"scarfSettings": { "enabled": false }`, scarf's README). These tests
// run scarf's own report.js on our package.json, each beside a control
// without the setting, so they fail if the setting goes or stops counting.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const http = require('node:http')
const { execFile } = require('node:child_process')
const { promisify } = require('node:util')

const ROOT = path.join(__dirname, '../..')
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'))
let report = null
try {
  report = require.resolve('@scarf/scarf/report.js', { paths: [ROOT] })
} catch {}
const skip = !report && 'no @scarf/scarf installed: nothing to turn off'

// report.js run as npm runs it after installing, with the root package
// `root` (scarf's skipTraversal: the root package's settings alone, no
// `npm ls`), reporting to a local server: the reports it received and
// what it logged.
async function runReport (root) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-scarf-'))
  const received = []
  const server = http.createServer((req, res) => {
    received.push(`${req.method} ${req.url}`)
    req.resume()
    req.on('end', () => res.end('{}'))
  })
  await new Promise((resolve) => server.listen(0, resolve))
  try {
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...root, scarfSettings: { ...root.scarfSettings, skipTraversal: true } }))
    const env = { ...process.env, INIT_CWD: dir, TMPDIR: dir, SCARF_LOCAL_PORT: String(server.address().port), SCARF_VERBOSE: 'true' }
    // the user's own opt-outs (and yarn, where scarf stays silent) would decide in the setting's place
    for (const name of ['SCARF_ANALYTICS', 'SCARF_NO_ANALYTICS', 'DO_NOT_TRACK', 'npm_execpath', 'npm_config_global']) delete env[name]
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [report], { env, timeout: 30000 })
    return { received, log: stdout + stderr }
  } finally {
    server.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

test('package.json turns off @scarf/scarf\'s install report: its report.js sends nothing, and would without the setting', { skip }, async () => {
  assert.deepEqual(pkg.scarfSettings, { enabled: false })
  const ours = await runReport({ name: pkg.name, version: pkg.version, scarfSettings: pkg.scarfSettings })
  assert.deepEqual(ours.received, [], ours.log)
  assert.match(ours.log, /User has opted out/)

  const without = await runReport({ name: pkg.name, version: pkg.version })
  assert.deepEqual(without.received, ['POST /package-event/install'], without.log)
})

// The path an install takes: scarf reads the dependency tree from `npm ls`
// and gives up when a package in the chain to it, the root included,
// disables it.
test('in the installed dependency tree, scarf finds itself disabled by the root package', { skip }, async () => {
  const { stdout } = await promisify(execFile)('npm', ['ls', '@scarf/scarf', '--json', '--long'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, timeout: 60000 }).catch((err) => err)
  const tree = JSON.parse(stdout)
  assert.deepEqual(tree.scarfSettings, { enabled: false }, 'npm ls shows scarf the root package\'s setting')
  const { processDependencyTreeOutput } = require(report)
  const decide = (output) => new Promise((resolve, reject) => processDependencyTreeOutput(resolve, reject)(null, JSON.stringify(output), ''))
  await assert.rejects(decide(tree), /disabled via a package\.json in the dependency chain/)
  const { scarfSettings, ...unset } = tree
  const found = await decide(unset)
  assert.equal(found.anyInChainDisabled, false, 'without the setting it would go on and report')
})
