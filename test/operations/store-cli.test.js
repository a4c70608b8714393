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

const SECRET = 'a-long-enough-secret-for-the-cli'

test('lrs store and --store: a store made, a credential in it, statements imported into it, exported from it and erased from it, the default store untouched', async () => {
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
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-store-cli-')), 'in.ndjson')
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
