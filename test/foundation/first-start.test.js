'use strict'

// What a person sees when starting the LRS the first time: the URL it
// serves, and with no credential a warning that says how to make one;
// readable lines when asked (a terminal), JSON otherwise.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const { spawn } = require('node:child_process')
const { freshStore, dropStoreDatabase } = require('../helpers/lrs')

const SERVER = path.join(__dirname, '../../src/server.js')

// Starts `node src/server.js` and resolves with its output once `until`
// matches it (or it exits) and `lingerMs` more have passed, then stops it.
function startAndRead (env, until, { lingerMs = 0 } = {}) {
  const child = spawn(process.execPath, [SERVER], { env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LRS_ADMIN_USER: '', LRS_ADMIN_PASSWORD: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let matched = false
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`no match within 20 s; output:\n${out}`)) }, 20000)
    const check = () => {
      if (!until.test(out) || matched) return
      matched = true
      clearTimeout(timer)
      child.once('exit', () => resolve(out))
      setTimeout(() => child.kill('SIGTERM'), lingerMs)
    }
    child.stdout.on('data', (d) => { out += d; check() })
    child.stderr.on('data', (d) => { out += d; check() })
    child.once('exit', () => { clearTimeout(timer); resolve(out) })
  })
}

test('a first start says where the LRS listens and, with no credential, how to create one (JSON lines)', async (t) => {
  const store = freshStore()
  t.after(() => dropStoreDatabase(store))
  const out = await startAndRead({ ...store, LRS_LOG_FORMAT: 'json' }, /no credential exists/)
  const lines = out.trim().split('\n').map((l) => JSON.parse(l))
  const listening = lines.find((l) => /^LRS listening on/.test(l.msg))
  assert.match(listening.msg, /^LRS listening on http:\/\/127\.0\.0\.1:\d+\/xapi$/)
  const warning = lines.find((l) => /no credential exists/.test(l.msg))
  assert.equal(warning.level, 40)
  assert.match(warning.msg, /every xAPI request gets 401: set LRS_ADMIN_USER and LRS_ADMIN_PASSWORD/)
})

test('pretty logs are readable lines, not JSON', async (t) => {
  const store = freshStore()
  t.after(() => dropStoreDatabase(store))
  const out = await startAndRead({ ...store, LRS_LOG_FORMAT: 'pretty' }, /no credential exists/)
  assert.match(out, /INFO.*LRS listening on http:\/\/127\.0\.0\.1:\d+\/xapi/)
  assert.match(out, /WARN.*no credential exists/)
  assert.ok(!out.split('\n').some((l) => l.startsWith('{')), 'no JSON line')
})

test('with a credential there is no warning', async (t) => {
  const store = freshStore()
  t.after(() => dropStoreDatabase(store))
  const out = await startAndRead({ ...store, LRS_LOG_FORMAT: 'json', LRS_ADMIN_USER: 'admin', LRS_ADMIN_PASSWORD: 'secret' }, /LRS listening on/, { lingerMs: 1500 })
  assert.match(out, /database ready/)
  assert.doesNotMatch(out, /no credential exists/)
})
