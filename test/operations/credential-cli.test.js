'use strict'

// `lrs credential` against a running LRS's store: the secret comes from
// stdin or a named variable, never the command line; a taken key and the
// bootstrap key are refused as the admin API refuses them; list shows no
// secret; a scope change and a revocation reach the running LRS within its
// credential poll; every change is logged with actor cli, never the secret.

const test = require('node:test')
const assert = require('node:assert/strict')
const { startLrs, ADMIN } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { until } = require('../helpers/wait')
const { runLrs } = require('../helpers/cli')

const SECRET = 'stdin-secret-0123456789'

test('a secret piped on stdin makes a credential that works, and the audit line has actor cli and no secret', async () => {
  const lrs = await startLrs()
  const made = await runLrs(['credential', 'create', 'lms', '--scopes', 'statements/write,statements/read'], lrs.storeEnv, { input: SECRET + '\n' })
  assert.equal(made.code, 0, made.stderr)
  assert.equal(made.stdout, 'credential "lms" created with scopes statements/write, statements/read\n')
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement(), auth: ['lms', SECRET] })).status, 200)
  assert.equal(made.log.length, 1)
  const [line] = made.log
  assert.equal(line.audit, 'credential-created')
  assert.equal(line.actor, 'cli')
  assert.equal(typeof line.osUser, 'string')
  assert.equal(line.key, 'lms')
  assert.deepEqual(line.scopes, ['statements/write', 'statements/read'])
  assert.ok(!(made.stdout + made.stderr).includes(SECRET))
})

test('a secret on the command line is refused with the reason, exit code 2, and nothing is stored', async () => {
  const lrs = await startLrs()
  const res = await runLrs(['credential', 'create', 'lms', SECRET], lrs.storeEnv)
  assert.equal(res.code, 2)
  assert.match(res.stderr, /^error: the secret is never taken from the command line .*--secret-env NAME\n\(run "lrs credential create --help"/)
  assert.equal((await lrs.client('/statements', { auth: ['lms', SECRET] })).status, 401)
  const short = await runLrs(['credential', 'create', 'lms'], lrs.storeEnv, { input: 'short\n' })
  assert.equal(short.code, 2)
  assert.match(short.stderr, /16 to 256 characters \(this one has 5\)/)
  const list = await runLrs(['credential', 'list', '--json'], lrs.storeEnv)
  assert.deepEqual(JSON.parse(list.stdout).map((c) => c.key), [ADMIN.user])
})

test('--secret-env reads the named variable; --generate prints a secret once', async () => {
  const lrs = await startLrs()
  const fromEnv = await runLrs(['credential', 'create', 'from-env', '--secret-env', 'MY_SECRET'], lrs.storeEnv, { env: { MY_SECRET: SECRET } })
  assert.equal(fromEnv.code, 0, fromEnv.stderr)
  assert.equal((await lrs.client('/statements', { auth: ['from-env', SECRET] })).status, 200)
  const unset = await runLrs(['credential', 'create', 'other', '--secret-env', 'NOT_SET_ANYWHERE'], lrs.storeEnv)
  assert.equal(unset.code, 2)
  assert.match(unset.stderr, /NOT_SET_ANYWHERE \(--secret-env\) is not set/)
  const generated = await runLrs(['credential', 'create', 'made-up', '--generate'], lrs.storeEnv)
  assert.equal(generated.code, 0, generated.stderr)
  const secret = generated.stdout.match(/^secret: (\S+)$/m)[1]
  assert.equal((await lrs.client('/statements', { auth: ['made-up', secret] })).status, 200)
})

test('create refuses a taken key without --force, and the bootstrap key always (LRS_ERR_CREDENTIAL_MANAGED)', async () => {
  const lrs = await startLrs()
  assert.equal((await runLrs(['credential', 'create', 'lms'], lrs.storeEnv, { input: SECRET })).code, 0)
  const again = await runLrs(['credential', 'create', 'lms'], lrs.storeEnv, { input: 'another-secret-0123456789' })
  assert.equal(again.code, 1)
  assert.match(again.stderr, /^lrs: a credential "lms" exists: add --force .*\(LRS_ERR_CREDENTIAL_EXISTS\)\n$/)
  assert.equal((await lrs.client('/statements', { auth: ['lms', SECRET] })).status, 200)

  const forced = await runLrs(['credential', 'create', 'lms', '--force'], lrs.storeEnv, { input: 'another-secret-0123456789' })
  assert.equal(forced.code, 0, forced.stderr)
  assert.equal(forced.log[0].audit, 'credential-replaced')
  // Every try before the worker's refresh is a failed authentication: at
  // one every 50 ms, ten of them (LRS_AUTH_MAX_FAILURES) locked the key for a
  // minute whenever the refresh took over half a second (a loaded machine),
  // and the new secret then got 429. Eight tries at most.
  assert.ok(await until(async () => (await lrs.client('/statements', { auth: ['lms', 'another-secret-0123456789'] })).status === 200, { within: 4000, every: 500 }))
  assert.equal((await lrs.client('/statements', { auth: ['lms', SECRET] })).status, 401)

  // the LRS of the test has the bootstrap key `admin`; so does the CLI's configuration
  const bootstrap = { LRS_ADMIN_USER: ADMIN.user, LRS_ADMIN_PASSWORD: ADMIN.password }
  for (const args of [['create', ADMIN.user, '--force'], ['scopes', ADMIN.user, 'all'], ['revoke', ADMIN.user]]) {
    const res = await runLrs(['credential', ...args], lrs.storeEnv, { input: SECRET, env: bootstrap })
    assert.equal(res.code, 1, args.join(' '))
    assert.match(res.stderr, /is the bootstrap credential \(LRS_ADMIN_USER\).*\(LRS_ERR_CREDENTIAL_MANAGED\)\n$/)
  }
  assert.equal((await lrs.http('/admin/credentials')).status, 200) // admin still works with its own secret
})

test('list shows key, created time, last use and scopes, never a secret or its hash', async () => {
  const lrs = await startLrs()
  assert.equal((await runLrs(['credential', 'create', 'reader', '--scopes', 'statements/read'], lrs.storeEnv, { input: SECRET })).code, 0)
  const list = await runLrs(['credential', 'list'], lrs.storeEnv, { env: { LRS_ADMIN_USER: ADMIN.user, LRS_ADMIN_PASSWORD: ADMIN.password } })
  assert.equal(list.code, 0, list.stderr)
  const lines = list.stdout.trim().split('\n')
  assert.match(lines[0], /^KEY +STORE +CREATED +LAST USED +SCOPES$/)
  assert.match(list.stdout, /^admin \(bootstrap\) +default +\d{4}-\d\d-\d\dT[\d:.]+Z +(never|\d{4}-\d\d-\d\dT[\d:.]+Z) +all,admin,stores\/admin$/m)
  assert.match(list.stdout, /^reader +default +\d{4}-\d\d-\d\dT[\d:.]+Z +never +statements\/read$/m)
  assert.ok(!list.stdout.includes('scrypt') && !list.stdout.includes(SECRET))

  assert.equal((await lrs.client('/statements?limit=1', { auth: ['reader', SECRET] })).status, 200)
  const readerUsed = async () => JSON.parse((await runLrs(['credential', 'list', '--json'], lrs.storeEnv)).stdout).find((c) => c.key === 'reader').lastUsedAt
  assert.ok(await until(async () => /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test((await readerUsed()) || '')), 'list --json shows when reader was used')
})

test('scopes and revoke reach the running LRS within its credential poll, and are logged', async () => {
  const lrs = await startLrs()
  assert.equal((await runLrs(['credential', 'create', 'lms', '--scopes', 'statements/write'], lrs.storeEnv, { input: SECRET })).code, 0)
  const auth = ['lms', SECRET]
  const post = () => lrs.client('/statements', { method: 'POST', body: statement(), auth })
  assert.equal((await post()).status, 200) // the LRS has verified (and remembers) this credential

  const rescoped = await runLrs(['credential', 'scopes', 'lms', 'statements/read'], lrs.storeEnv)
  assert.equal(rescoped.code, 0, rescoped.stderr)
  assert.deepEqual([rescoped.log[0].audit, rescoped.log[0].actor, rescoped.log[0].scopes], ['credential-scopes', 'cli', ['statements/read']])
  assert.ok(await until(async () => (await post()).status === 403, { within: 10000 }), 'the scope change did not reach the LRS')

  const revoked = await runLrs(['credential', 'revoke', 'lms'], lrs.storeEnv)
  assert.equal(revoked.code, 0, revoked.stderr)
  assert.deepEqual([revoked.log[0].audit, revoked.log[0].actor, revoked.log[0].key], ['credential-revoked', 'cli', 'lms'])
  assert.ok(await until(async () => (await lrs.client('/statements', { auth })).status === 401, { within: 10000 }), 'the revocation did not reach the LRS')

  const gone = await runLrs(['credential', 'revoke', 'lms'], lrs.storeEnv)
  assert.equal(gone.code, 1)
  assert.match(gone.stderr, /no credential "lms".*\(LRS_ERR_NOT_FOUND\)/)
  const badScope = await runLrs(['credential', 'scopes', 'lms', 'root'], lrs.storeEnv)
  assert.equal(badScope.code, 2)
  assert.match(badScope.stderr, /unknown scope\(s\): root; known: all,/)
})
