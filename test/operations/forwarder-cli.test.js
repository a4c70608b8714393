'use strict'

// lrs forwarder (issue 56): the operator manages forwarders from a shell on
// the host, as a store's admin does through /admin/forwarders, with the
// same rules and code (src/forwarding/forwarder-admin.js). A forwarder made
// here delivers what a running LRS stores, pausing and resuming reach its
// workers without a restart, secrets are never printed, and what cannot be
// done is refused in one line.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startLrs } = require('../helpers/lrs')
const { runLrs } = require('../helpers/cli')
const { statement } = require('../helpers/statements')
const { upstreamLrs } = require('../helpers/upstream-lrs')
const { until } = require('../helpers/wait')
const { postStatements: post } = require('../helpers/stores')

const KEY = crypto.randomBytes(32).toString('base64')
const SECRET = 'a-long-enough-secret-for-the-cli'

// Whether the running LRS's workers deliver to forwarder `id` now (a
// paused one's statements wait in its queue): where the CLI's change
// reaches them, within LRS_CREDENTIAL_POLL_MS.
const delivering = (lrs, id) => lrs.services.upstreams.all().some((u) => u.forwarderId === id)

test('lrs forwarder: one made from a shell delivers what the running LRS stores in its store; paused, its statements wait; resumed, they go; removed, it is gone; its password is never printed', async (t) => {
  const password = 'upstream-pw-' + crypto.randomBytes(8).toString('hex')
  const up = await upstreamLrs(undefined, { user: 'fw-user', password })
  t.after(() => up.server.close())
  const lrs = await startLrs({ LRS_SECRETS_KEY: KEY })
  const env = { env: { LRS_SECRETS_KEY: KEY } }
  const cli = (args, options = {}) => runLrs(args, lrs.storeEnv, { ...env, ...options })
  const printed = [] // what every run wrote
  const run = async (args, options) => {
    const res = await cli(args, options)
    printed.push(res)
    return res
  }
  assert.equal((await run(['store', 'create', 'acme'])).code, 0)
  assert.equal((await run(['credential', 'create', 'acme-lms', '--store', 'acme', '--scopes', 'all'], { input: SECRET })).code, 0)
  const acme = (p, options = {}) => lrs.client(p, { auth: ['acme-lms', SECRET], ...options })

  const definition = { name: 'warehouse', target: { kind: 'lrs', url: up.url.replace(`fw-user:${password}@`, ''), auth: { type: 'basic', username: 'fw-user', password } } }
  const made = await run(['forwarder', 'create', '--store', 'acme'], { input: JSON.stringify(definition) })
  assert.equal(made.code, 0, made.stderr)
  assert.match(made.stdout, /^forwarder "[0-9a-f-]{36}" \("warehouse", to lrs http:\/\/127\.0\.0\.1:\d+\/xapi\) created in store "acme"/)
  const listed = JSON.parse((await run(['forwarder', 'list', '--json'])).stdout)
  assert.equal(listed.length, 1)
  const { id } = listed[0]
  assert.ok(made.stdout.includes(id))
  assert.equal(listed[0].store, 'acme')
  assert.equal(listed[0].state, 'active')
  assert.deepEqual(listed[0].target.auth, { type: 'basic', username: 'fw-user' })
  const stored = (await lrs.storage.forwarders.all()).find((f) => f.id === id)
  assert.match(stored.definition.target.auth.password, /^sealed:v1:/, 'sealed in the database')

  // the running LRS takes it without a restart, and delivers with its credentials
  assert.ok(await until(() => delivering(lrs, id)), 'the running LRS has the forwarder')
  const first = await post(acme, [statement(), statement()])
  assert.ok(await until(() => first.every((s) => up.received.some((r) => r.id === s))), 'delivered upstream')
  assert.ok(up.requests.every((r) => r.auth === 'Basic ' + Buffer.from(`fw-user:${password}`).toString('base64')))
  const table = await run(['forwarder', 'list', '--store', 'acme'])
  assert.equal(table.code, 0, table.stderr)
  assert.match(table.stdout, /^ID +STORE +STATE +DELIVERY +QUEUED +DEAD +DELIVERED +TARGET +NAME\n/)
  assert.match(table.stdout, new RegExp(`\\n${id} +acme +active +\\w+ +\\d+ +0 +\\d+ +lrs http://127\\.0\\.0\\.1:\\d+/xapi +warehouse\\n`))
  assert.match((await run(['forwarder', 'list', '--store', 'default'])).stdout, /^no forwarders in store "default"/)

  // paused: the workers stop delivering; what is stored meanwhile waits in its queue
  const paused = await run(['forwarder', 'pause', id])
  assert.equal(paused.code, 0, paused.stderr)
  assert.match(paused.stdout, new RegExp(`^forwarder "${id}" paused`))
  assert.ok(await until(() => !delivering(lrs, id)), 'the running LRS stops delivering')
  const waiting = await post(acme, [statement(), statement()])
  const show = async () => JSON.parse((await run(['forwarder', 'show', id, '--json'])).stdout)
  assert.ok(await until(async () => (await show()).delivery.queued === 2, { every: 200 }), 'queued while paused')
  await new Promise((resolve) => setTimeout(resolve, 1000))
  assert.ok(!up.received.some((r) => waiting.includes(r.id)), 'nothing delivered while paused')
  const shown = await run(['forwarder', 'show', id])
  assert.equal(shown.code, 0, shown.stderr)
  assert.match(shown.stdout, /^id: +[0-9a-f-]{36}\n/)
  assert.match(shown.stdout, /\nstate: +paused\n/)
  assert.match(shown.stdout, /\ntarget: +lrs http:\/\/127\.0\.0\.1:\d+\/xapi \(xAPI as stored; auth basic, username fw-user\)\n/)
  assert.match(shown.stdout, /\nqueued: +2 \(the oldest since /)

  // resumed: the queue goes
  const resumed = await run(['forwarder', 'resume', id])
  assert.equal(resumed.code, 0, resumed.stderr)
  assert.match(resumed.stdout, /resumed: the running LRS delivers its queue \(\d+ statements? now\)/)
  assert.ok(await until(() => waiting.every((s) => up.received.some((r) => r.id === s))), 'the queued statements delivered once resumed')
  assert.equal((await show()).state, 'active')

  // changed with the whole definition but the password: the password is kept
  const changed = await run(['forwarder', 'change', id, '--name', 'warehouse 2'], { input: JSON.stringify({ ...definition, target: { ...definition.target, auth: { type: 'basic', username: 'fw-user' } } }) })
  assert.equal(changed.code, 0, changed.stderr)
  assert.match(changed.stdout, new RegExp(`^forwarder "${id}" changed \\(revision 4\\): "warehouse 2", to lrs http://127\\.0\\.0\\.1:\\d+/xapi, active;`))
  const after = (await lrs.storage.forwarders.all()).find((f) => f.id === id)
  assert.equal(after.definition.target.auth.password, stored.definition.target.auth.password, 'the sealed password kept')

  // removed: gone for the CLI and for the workers
  const removed = await run(['forwarder', 'remove', id])
  assert.equal(removed.code, 0, removed.stderr)
  assert.match(removed.stdout, new RegExp(`^forwarder "${id}" \\("warehouse 2"\\) removed from store "acme"`))
  assert.ok(await until(() => !delivering(lrs, id)), 'the running LRS drops it')
  assert.deepEqual(JSON.parse((await run(['forwarder', 'list', '--json'])).stdout), [])
  const gone = await run(['forwarder', 'show', id])
  assert.equal(gone.code, 1)
  assert.equal(gone.stderr, `lrs: no forwarder "${id}" (LRS_ERR_NOT_FOUND)\n`)

  const audit = printed.flatMap((res) => res.log).filter((l) => /^forwarder-/.test(l.audit))
  assert.deepEqual(audit.map((l) => [l.audit, l.forwarder, l.store, l.actor]), ['created', 'paused', 'resumed', 'changed', 'deleted'].map((a) => [`forwarder-${a}`, id, 'acme', 'cli']), 'each change has its audit line')
  assert.ok(printed.every((res) => !res.stdout.includes(password) && !res.stderr.includes(password)), 'the password is never printed')
})

test('lrs forwarder: a webhook made from a shell gets a signing secret printed once; dead letters are listed, replayed and discarded', async (t) => {
  const up = await upstreamLrs(() => 400)
  t.after(() => up.server.close())
  const lrs = await startLrs({ LRS_SECRETS_KEY: KEY })
  const cli = (args, options = {}) => runLrs(args, lrs.storeEnv, { env: { LRS_SECRETS_KEY: KEY }, ...options })

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-forwarder-cli-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'hook.json')
  fs.writeFileSync(file, JSON.stringify({ name: 'draft', target: { kind: 'webhook', url: 'https://hooks.example.com/xapi' }, paused: true }))
  const hook = await cli(['forwarder', 'create', '--definition', file, '--name', 'BI webhook', '--json'])
  assert.equal(hook.code, 0, hook.stderr)
  const made = JSON.parse(hook.stdout)
  assert.equal(made.name, 'BI webhook', '--name over the definition\'s')
  assert.equal(made.state, 'paused')
  assert.equal(made.store, 'default')
  assert.match(made.secrets[0], /^whsec_/)
  const secret = made.secrets[0]
  const again = await cli(['forwarder', 'show', made.id, '--json'])
  assert.equal(JSON.parse(again.stdout).secrets, undefined, 'shown once only')
  assert.equal(JSON.parse(again.stdout).target.secrets, 1)
  for (const res of [again, await cli(['forwarder', 'show', made.id]), await cli(['forwarder', 'list'])]) assert.ok(!res.stdout.includes(secret) && !res.stderr.includes(secret))
  const human = await cli(['forwarder', 'create'], { input: JSON.stringify({ name: 'hook 2', target: { kind: 'webhook', url: 'https://hooks.example.com/xapi' }, paused: true }) })
  assert.equal(human.code, 0, human.stderr)
  assert.match(human.stdout, /it delivers none until "lrs forwarder resume [0-9a-f-]{36}"\nsigning secret: whsec_\S+\n\(shown once/)
  assert.ok(!human.stderr.includes('whsec_'), 'not in the audit line')
  for (const f of JSON.parse((await cli(['forwarder', 'list', '--json'])).stdout)) assert.equal((await cli(['forwarder', 'remove', f.id])).code, 0)

  // a target that refuses (400): the statements become dead letters
  const mirror = await cli(['forwarder', 'create', '--json'], { input: JSON.stringify({ name: 'mirror', target: { kind: 'lrs', url: up.url.replace('fwd:pw@', '') } }) })
  assert.equal(mirror.code, 0, mirror.stderr)
  const { id } = JSON.parse(mirror.stdout)
  assert.ok(await until(() => delivering(lrs, id)))
  const refused = await post(lrs.client, [statement(), statement()])
  const show = async () => JSON.parse((await cli(['forwarder', 'show', id, '--json'])).stdout)
  assert.ok(await until(async () => (await show()).delivery.deadLetters === 2, { every: 200 }), 'dead letters')
  const listed = await cli(['forwarder', 'dead-letters', id])
  assert.equal(listed.code, 0, listed.stderr)
  assert.match(listed.stdout, /^STATEMENT +STATUS +FAILED +QUEUED +REASON\n/)
  for (const s of refused) assert.match(listed.stdout, new RegExp(`\\n${s} +`))
  assert.deepEqual(JSON.parse((await cli(['forwarder', 'dead-letters', id, '--json'])).stdout).map((d) => d.statementId).sort(), [...refused].sort())

  up.server.answer = () => 200
  const replayed = await cli(['forwarder', 'dead-letters', id, '--replay'])
  assert.equal(replayed.code, 0, replayed.stderr)
  assert.match(replayed.stdout, new RegExp(`^2 dead letters of forwarder "${id}" put back in its queue`))
  assert.ok(await until(() => refused.every((s) => up.received.some((r) => r.id === s))), 'delivered once replayed')

  up.server.answer = () => 400
  await post(lrs.client, [statement()])
  assert.ok(await until(async () => (await show()).delivery.deadLetters === 1, { every: 200 }))
  const discarded = await cli(['forwarder', 'dead-letters', id, '--discard', '--json'])
  assert.equal(discarded.code, 0, discarded.stderr)
  assert.deepEqual(JSON.parse(discarded.stdout), { discarded: 1 })
  assert.match((await cli(['forwarder', 'dead-letters', id])).stdout, /has no dead letters/)
  assert.deepEqual(discarded.log.map((l) => [l.audit, l.discarded, l.store]), [['forwarder-dead-letters-discarded', 1, 'default']])
})

test('lrs forwarder refuses in one line what it cannot do: a host the operator forbids, a definition that is not JSON or that the LRS refuses, a secret without LRS_SECRETS_KEY; nothing is made', async () => {
  const lrs = await startLrs()
  const cli = (args, options = {}) => runLrs(args, lrs.storeEnv, options)
  const create = (definition, env = {}) => cli(['forwarder', 'create'], { input: typeof definition === 'string' ? definition : JSON.stringify(definition), env })
  const oneLine = (res, code, pattern) => {
    assert.equal(res.code, code, res.stdout + res.stderr)
    assert.equal(res.stdout, '')
    const lines = res.stderr.trim().split('\n')
    assert.equal(lines.length, code === 2 ? 2 : 1, res.stderr)
    assert.match(lines[0], pattern)
    if (code === 2) assert.equal(lines[1], '(run "lrs forwarder create --help" for usage and examples)')
  }

  // the operator's list holds for the command line too
  const forbidden = { LRS_FORWARD_FORBIDDEN_HOSTS: 'private' }
  oneLine(await create({ name: 'x', target: { kind: 'lrs', url: 'http://127.0.0.1:9/xapi' } }, forbidden), 1, /^lrs: target\.url: the operator forbids forwarding to 127\.0\.0\.1 \(127\.0\.0\.1\) \(LRS_ERR_REQUEST_INVALID\)$/)
  oneLine(await create({ name: 'x', target: { kind: 'lrs', url: 'http://169.254.169.254/latest' } }, forbidden), 1, /forbids forwarding to 169\.254\.169\.254/)

  // not JSON, not an object, nothing: usage errors (2), with where
  oneLine(await create('{"name": "x", target: {}}'), 2, /^error: the definition on stdin is not JSON: line 1, column 15: unexpected 't'$/)
  oneLine(await create('["name"]'), 2, /^error: the definition on stdin must be a JSON object/)
  oneLine(await create(''), 2, /^error: no definition on stdin/)
  // what the LRS refuses in it: the API's 400 (1)
  oneLine(await create({ name: 'x', target: { kind: 'carrier-pigeon', url: 'https://lrs.example.com/xapi' } }), 1, /^lrs: body\/target\/kind must be one of \["lrs","webhook"\] \(LRS_ERR_REQUEST_INVALID\)$/)
  oneLine(await create({ name: 'x', target: { kind: 'lrs', url: 'ftp://lrs.example.com/xapi' } }), 1, /^lrs: target\.url must be http or https/)
  oneLine(await create({ name: 'x', target: { kind: 'lrs', url: 'https://lrs.example.com/xapi' }, filter: { verb: 'not an iri' } }), 1, /^lrs: filter\.verb must be an IRI/)
  const token = 'bearer-token-' + crypto.randomBytes(8).toString('hex')
  const noKey = await create({ name: 'x', target: { kind: 'lrs', url: 'https://lrs.example.com/xapi', auth: { type: 'bearer', token } } })
  oneLine(noKey, 1, /LRS_SECRETS_KEY.*\(LRS_ERR_SECRETS_KEY_MISSING\)$/)
  assert.ok(!noKey.stderr.includes(token))
  oneLine(await cli(['forwarder', 'create', '--definition', path.join(os.tmpdir(), 'no-such-definition.json')]), 1, /^lrs: cannot read the definition .*no-such-definition\.json: no such file$/)
  oneLine(await cli(['forwarder', 'create', '--store', 'nowhere'], { input: JSON.stringify({ name: 'x', target: { kind: 'lrs', url: 'https://lrs.example.com/xapi' } }) }), 1, /^lrs: no store "nowhere" \(LRS_ERR_NOT_FOUND\)$/)
  assert.deepEqual(JSON.parse((await cli(['forwarder', 'list', '--json'])).stdout), [], 'nothing made')
  assert.match((await cli(['forwarder', 'list'])).stdout, /^no forwarders: make one with "lrs forwarder create < forwarder\.json"\n$/)

  for (const args of [['pause', 'nope'], ['remove', 'nope'], ['dead-letters', 'nope', '--replay']]) {
    const res = await cli(['forwarder', ...args])
    assert.equal(res.code, 1, args.join(' '))
    assert.equal(res.stderr, 'lrs: no forwarder "nope" (LRS_ERR_NOT_FOUND)\n')
  }
  const both = await cli(['forwarder', 'dead-letters', 'nope', '--replay', '--discard'])
  assert.equal(both.code, 2)
  assert.match(both.stderr, /^error: --replay and --discard exclude each other\n/)
  assert.equal((await cli(['forwarder', 'dead-letters', 'nope', '--limit', '0'])).code, 2)
  assert.equal((await cli(['forwarder', 'create', 'a-secret-typed-here'], { input: '{}' })).code, 2, 'no argument to type a secret into')

  // every subcommand explains itself, with examples
  for (const sub of [[], ['list'], ['show'], ['create'], ['change'], ['pause'], ['resume'], ['remove'], ['dead-letters']]) {
    const name = ['lrs', 'forwarder', ...sub].join(' ')
    const help = await cli(['forwarder', ...sub, '--help'])
    assert.equal(help.code, 0, name)
    assert.match(help.stdout, /\nExamples:\n {2}\$ lrs forwarder /, name)
  }
  const wrong = await cli(['forwarder', 'create', '--no-such-option'])
  assert.equal(wrong.code, 2)
  assert.equal(wrong.stderr, 'error: unknown option \'--no-such-option\'\n(run "lrs forwarder create --help" for usage and examples)\n')
})
