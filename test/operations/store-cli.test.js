'use strict'

// lrs store create|list, and the --store option of credential create,
// export, import and erase-agent (issue 36): a shell on the host does what
// the admin API does, in the store it names.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { startLrs } = require('../helpers/lrs')
const { runLrs } = require('../helpers/cli')
const { statement, allIds } = require('../helpers/statements')
const { upstreamLrs } = require('../helpers/upstream-lrs')
const { until } = require('../helpers/wait')

const SECRET = 'a-long-enough-secret-for-the-cli'

test('lrs store and --store: a store made, a credential in it, statements imported into it, exported from it and erased from it, the default store untouched', async (t) => {
  const lrs = await startLrs()
  const made = await runLrs(['store', 'create', 'acme', '--name', 'ACME Corp'], lrs.storeEnv)
  assert.equal(made.code, 0, made.stderr)
  assert.equal((await runLrs(['store', 'create', 'acme'], lrs.storeEnv)).code, 1, 'a taken id')
  assert.equal((await runLrs(['store', 'create', 'Not An Id'], lrs.storeEnv)).code, 2, 'a usage error')
  assert.equal((await runLrs(['credential', 'create', 'acme-lms', '--store', 'acme', '--scopes', 'all'], lrs.storeEnv, { input: SECRET })).code, 0)
  assert.equal((await runLrs(['credential', 'create', 'k', '--store', 'nowhere'], lrs.storeEnv, { input: SECRET })).code, 1, 'an unknown store')
  const acme = { client: (p, options = {}) => lrs.client(p, { auth: ['acme-lms', SECRET], ...options }) }

  // a file of statements with their ids, imported into acme only
  const learner = { mbox: `mailto:cli-${crypto.randomUUID()}@example.com` }
  const lines = Array.from({ length: 5 }, () => statement({ id: crypto.randomUUID(), actor: learner }))
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-store-cli-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'in.ndjson')
  fs.writeFileSync(file, lines.map((s) => JSON.stringify(s)).join('\n') + '\n')
  const imported = await runLrs(['import', '--store', 'acme', file], lrs.storeEnv)
  assert.equal(imported.code, 0, imported.stderr)
  const ids = lines.map((s) => s.id)
  assert.deepEqual([...await allIds(acme, '')].sort(), [...ids].sort())
  assert.deepEqual(await allIds(lrs, ''), [])
  // the same file into the default store: a store of its own, the same ids
  assert.equal((await runLrs(['import', file], lrs.storeEnv)).code, 0)
  assert.deepEqual([...await allIds(lrs, '')].sort(), [...ids].sort())

  assert.equal((await runLrs(['store', 'rename', 'acme', 'ACME Corporation'], lrs.storeEnv)).code, 0)
  assert.equal((await runLrs(['store', 'rename', 'nowhere', 'x'], lrs.storeEnv)).code, 1)
  const listed = JSON.parse((await runLrs(['store', 'list', '--json'], lrs.storeEnv)).stdout)
  assert.deepEqual(listed.map((s) => [s.id, s.name, s.statements]), [['default', 'Default store', 5], ['acme', 'ACME Corporation', 5]])
  const credentials = JSON.parse((await runLrs(['credential', 'list', '--json'], lrs.storeEnv)).stdout)
  assert.equal(credentials.find((c) => c.key === 'acme-lms').store, 'acme')

  const exported = await runLrs(['export', '--store', 'acme'], lrs.storeEnv)
  assert.deepEqual(exported.stdout.trim().split('\n').map((l) => JSON.parse(l).id).sort(), [...ids].sort())

  const erased = await runLrs(['erase-agent', JSON.stringify(learner), '--store', 'acme', '--yes'], lrs.storeEnv)
  assert.equal(erased.code, 0, erased.stderr)
  assert.match(erased.stdout, /removed 5 statements/)
  assert.deepEqual(await allIds(acme, ''), [])
  assert.equal((await allIds(lrs, '')).length, 5, 'the default store keeps its copies')
})

test('lrs store forward: upstreams read from stdin, checked line by line, taken by the running LRS, shown without their credentials, and removed with --none', async (t) => {
  const upstream = await upstreamLrs(undefined, { user: 'acme-user', password: 'acme-upstream-secret' })
  t.after(() => upstream.server.close())
  const lrs = await startLrs()
  assert.equal((await runLrs(['store', 'create', 'acme'], lrs.storeEnv)).code, 0)
  assert.equal((await runLrs(['credential', 'create', 'acme-lms', '--store', 'acme', '--scopes', 'all'], lrs.storeEnv, { input: SECRET })).code, 0)
  const acme = (p, options = {}) => lrs.client(p, { auth: ['acme-lms', SECRET], ...options })

  // refused, nothing set: a bad line, the same endpoint twice, nothing piped
  const bad = await runLrs(['store', 'forward', 'acme'], lrs.storeEnv, { input: `${upstream.url}\nftp://files.example.com/xapi\n` })
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /line 2 must be http or https/)
  const twice = await runLrs(['store', 'forward', 'acme'], lrs.storeEnv, { input: `${upstream.url}\n${upstream.url}/\n` })
  assert.equal(twice.code, 2)
  assert.match(twice.stderr, /line 2 names the endpoint of line 1 again/)
  assert.equal((await runLrs(['store', 'forward', 'acme'], lrs.storeEnv)).code, 2, 'no URL piped')
  assert.equal((await runLrs(['store', 'forward', 'nowhere'], lrs.storeEnv, { input: upstream.url })).code, 1, 'an unknown store')
  const listed = async () => JSON.parse((await runLrs(['store', 'list', '--json'], lrs.storeEnv)).stdout).find((s) => s.id === 'acme').forwardTo
  assert.deepEqual(await listed(), [])

  const set = await runLrs(['store', 'forward', 'acme'], lrs.storeEnv, { input: `\n  ${upstream.url}  \n` })
  assert.equal(set.code, 0, set.stderr)
  assert.ok(!set.stdout.includes('acme-upstream-secret') && !set.stderr.includes('acme-upstream-secret'), 'the upstream\'s secret is never shown')
  const shown = upstream.url.replace('acme-user:acme-upstream-secret@', '')
  assert.ok(set.stdout.includes(shown), set.stdout)
  assert.deepEqual(await listed(), [shown])
  assert.deepEqual((await lrs.http('/admin/stores/acme')).json.forwardTo, [shown])

  // the running LRS forwards acme's statements stored from then on (its workers read the change within the credential poll)
  const sent = new Set()
  assert.ok(await until(async () => {
    const posted = await acme('/statements', { method: 'POST', body: [statement()] })
    assert.equal(posted.status, 200, posted.text)
    sent.add(posted.json[0])
    return upstream.received.some((s) => sent.has(s.id))
  }, { every: 200 }), 'acme\'s statements forwarded upstream')
  const home = await lrs.client('/statements', { method: 'POST', body: [statement()] })
  await new Promise((resolve) => setTimeout(resolve, 500))
  assert.ok(!upstream.received.some((s) => s.id === home.json[0]), 'the default store\'s statement is not acme\'s to forward')

  const none = await runLrs(['store', 'forward', 'acme', '--none'], lrs.storeEnv)
  assert.equal(none.code, 0, none.stderr)
  assert.deepEqual(await listed(), [])
  const audit = set.log.concat(none.log).filter((l) => l.audit === 'store-forwarding')
  assert.deepEqual(audit.map((l) => [l.store, l.upstreams, l.actor]), [['acme', 1, 'cli'], ['acme', 0, 'cli']], 'each change has its audit line')
  assert.ok(!JSON.stringify(audit).includes('acme-upstream-secret'))
})
