'use strict'

// The `lrs` command line as a new user meets it (bin/lrs.js, src/cli/):
// every command explains itself with --help and examples, a wrong option
// is refused in one line with a hint and exit code 2, `lrs config` shows
// the configuration with its secrets masked and names each problem in one
// line, and `lrs erase-agent` previews before it erases.

const test = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, freshStore, dropStoreDatabase } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { runLrs } = require('../helpers/cli')
const fs = require('node:fs')

const COMMANDS = [[], ['credential'], ['credential', 'create'], ['credential', 'list'], ['credential', 'scopes'], ['credential', 'revoke'],
  ['export'], ['import'], ['erase-agent'], ['config'], ['check'],
  ['store'], ['store', 'create'], ['store', 'rename'], ['store', 'retention'], ['store', 'forward'], ['store', 'delete'], ['store', 'list'], ['migrate']]

function newStore () {
  const env = freshStore()
  test.after(async () => {
    await dropStoreDatabase(env)
    fs.rmSync(env.LRS_DATA_DIR, { recursive: true, force: true })
  })
  return env
}

test('every command answers --help with a description and an example, exit code 0', async () => {
  for (const command of COMMANDS) {
    const res = await runLrs([...command, '--help'])
    const name = ['lrs', ...command].join(' ')
    assert.equal(res.code, 0, `${name}: ${res.stderr}`)
    assert.match(res.stdout, /^Usage: lrs/, name)
    assert.match(res.stdout, /\nExamples:\n {2}\$ lrs /, name)
    assert.equal(res.stderr, '', name)
  }
})

test('an unknown option is refused in one line with a hint to --help, exit code 2', async () => {
  for (const command of COMMANDS) {
    const res = await runLrs([...command, '--no-such-option'])
    const name = ['lrs', ...command].join(' ')
    assert.equal(res.code, 2, `${name}: ${res.stdout}${res.stderr}`)
    const lines = res.stderr.trim().split('\n')
    assert.equal(lines.length, 2, `${name}: ${res.stderr}`)
    assert.match(lines[0], /^error: unknown option '--no-such-option'$/)
    assert.equal(lines[1], `(run "${name} --help" for usage and examples)`)
  }
  const missing = await runLrs(['credential', 'revoke'])
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /missing required argument 'key'/)
  const unknown = await runLrs(['exprot'])
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr, /unknown command 'exprot'[\s\S]*Did you mean export\?/)
})

test('lrs config prints every setting with secrets masked, and says the configuration is valid', async () => {
  const secrets = { LRS_ADMIN_PASSWORD: 'admin-password-123', LRS_CURSOR_KEY: 'k'.repeat(40), MONGODB_URI: 'mongodb://lrs:db-password-456@db.example:27017/?replicaSet=rs0', LRS_FORWARD_URLS: 'https://up:fwd-password-789@up.example/xapi' }
  const res = await runLrs(['config'], {}, { env: { LRS_ADMIN_USER: 'admin', PORT: '9000', ...secrets } })
  assert.equal(res.code, 0, res.stderr)
  for (const value of ['admin-password-123', 'k'.repeat(40), 'db-password-456', 'fwd-password-789']) assert.ok(!res.stdout.includes(value), `${value} shown`)
  assert.match(res.stdout, /^LRS_ADMIN_PASSWORD +environment +\*{8}$/m)
  assert.match(res.stdout, /^MONGODB_URI +environment +mongodb:\/\/lrs:\*\*\*\*@db\.example:27017/m)
  assert.match(res.stdout, /^LRS_FORWARD_URLS +environment +https:\/\/up:\*\*\*\*@up\.example\/xapi$/m)
  assert.match(res.stdout, /^PORT +environment +9000$/m)
  assert.match(res.stdout, /^LRS_LOG_FORMAT +default +auto$/m)
  assert.match(res.stdout, /the configuration is valid \(storage: mongodb, database lrs\)/)
})

test('lrs config names each bad setting in one line, exit code 1, no stack trace', async () => {
  const res = await runLrs(['config'], {}, { env: { PORT: 'eighty', LRS_LOG_FORMAT: 'xml', LRS_ADMIN_USER: 'root', LRS_ADMIN_PASSWORD: '' } })
  assert.equal(res.code, 1)
  assert.deepEqual(res.stderr.trim().split('\n').sort(), [
    'lrs config: LRS_ADMIN_PASSWORD is required with LRS_ADMIN_USER',
    'lrs config: LRS_LOG_FORMAT must be equal to one of the allowed values (auto, json, pretty)',
    'lrs config: PORT must be integer'
  ])
  // the other commands refuse a bad configuration in one line too
  const check = await runLrs(['check'], {}, { env: { PORT: 'eighty' } })
  assert.equal(check.code, 1)
  assert.equal(check.stderr, 'lrs: invalid configuration: PORT must be integer (run "lrs config" to see every setting)\n')
})

test('lrs erase-agent previews with --dry-run, erases with --yes, and logs the erasure with actor cli, never the agent', async () => {
  const lrs = await startLrs()
  const learner = { objectType: 'Agent', mbox: `mailto:learner-${crypto.randomUUID()}@example.com` }
  assert.equal((await lrs.client('/statements', { method: 'POST', body: [statement({ actor: learner }), statement({ actor: learner }), statement()] })).status, 200)
  const agent = JSON.stringify(learner)
  const unconfirmed = await runLrs(['erase-agent', agent], lrs.storeEnv)
  assert.equal(unconfirmed.code, 2)
  assert.match(unconfirmed.stderr, /cannot be undone: add --dry-run .* or --yes/)
  const preview = await runLrs(['erase-agent', agent, '--dry-run'], lrs.storeEnv)
  assert.equal(preview.code, 0, preview.stderr)
  assert.match(preview.stdout, /^would remove 2 statements, 0 state documents, 0 agent profile documents/)
  assert.equal(preview.log.length, 0) // nothing changed, nothing to audit
  const q = `/statements?agent=${encodeURIComponent(agent)}`
  assert.equal((await lrs.client(q)).json.statements.length, 2)

  const erased = await runLrs(['erase-agent', agent, '--yes'], lrs.storeEnv)
  assert.equal(erased.code, 0, erased.stderr)
  assert.match(erased.stdout, /^removed 2 statements/)
  assert.equal((await lrs.client(q)).json.statements.length, 0)
  const [line] = erased.log
  assert.equal(line.audit, 'agent-erased')
  assert.equal(line.actor, 'cli')
  assert.equal(typeof line.osUser, 'string')
  assert.equal(line.removed.statements, 2)
  assert.ok(!erased.stderr.includes(learner.mbox))

  const bad = await runLrs(['erase-agent', '{"mbox":"learner@example.com"}', '--yes'], newStore())
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /^error: .*mbox/)
})
