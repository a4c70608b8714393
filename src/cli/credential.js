'use strict'

// lrs credential create|list|scopes|revoke: the credentials of the store,
// as the admin API manages them (src/admin/credentials-routes.js), for a
// shell on the host: before any credential exists, or without one. The
// same rules: the bootstrap key (LRS_ADMIN_USER) is refused, since every
// start writes it again from the configuration; a taken key is refused
// unless --force. Every worker of a running LRS applies a change within
// LRS_CREDENTIAL_POLL_MS. Each change writes an audit line (audit.js).

const { errors } = require('../errors')
const { hashSecretAsync } = require('../auth/secrets')
const { KNOWN_SCOPES } = require('../auth/scopes')
const { KEY_PATTERN } = require('../auth/credential-rules')
const { action, usageError, configOf, withStorage, storeNumber } = require('./common')
const { storeDirectory } = require('../stores/store-directory')
const { readSecret } = require('./secret-input')
const { auditLogger } = require('./audit')
const { formatTable } = require('./table')

const SCOPES_HELP = `scopes, comma-separated: ${[...KNOWN_SCOPES].join(', ')}`

function checkKey (cmd, key) {
  if (!new RegExp(KEY_PATTERN).test(key)) usageError(cmd, `a key has 1 to 128 letters, digits or . _ ~ - (got "${key}")`)
}

function scopesOf (cmd, list) {
  const scopes = [...new Set(list.split(',').map((s) => s.trim()).filter(Boolean))]
  const unknown = scopes.filter((s) => !KNOWN_SCOPES.has(s))
  if (!scopes.length) usageError(cmd, `no scope given; known: ${[...KNOWN_SCOPES].join(', ')}`)
  if (unknown.length) usageError(cmd, `unknown scope(s): ${unknown.join(', ')}; known: ${[...KNOWN_SCOPES].join(', ')}`)
  return scopes
}

// The bootstrap credential is written from the configuration at every
// start: a change here would silently come back.
function assertNotBootstrap (config, key) {
  if (config.adminUser && key === config.adminUser) throw errors.CredentialManaged(`"${key}" is the bootstrap credential (LRS_ADMIN_USER): it is set from the configuration at every start; change LRS_ADMIN_PASSWORD instead`)
}

async function create (io, cmd, key, options) {
  checkKey(cmd, key)
  if (cmd.args.length > 1) usageError(cmd, 'the secret is never taken from the command line (shell history, ps): pipe it on stdin, type it at the prompt, or name a variable with --secret-env NAME')
  if (options.generate && options.secretEnv) usageError(cmd, '--generate and --secret-env exclude each other')
  const scopes = scopesOf(cmd, options.scopes)
  const config = configOf(io)
  assertNotBootstrap(config, key)
  return withStorage(config, async (storage) => {
    const existing = (await storage.credentials.all()).find((c) => c.key === key)
    const exists = existing !== undefined
    if (exists && !options.force) throw errors.CredentialExists(`a credential "${key}" exists: add --force to replace its secret and scopes`)
    // a replaced credential stays in its store unless --store says another
    const store = options.store === undefined && exists ? existing.store || 0 : await storeNumber(storage, options.store)
    const { secret, generated, problem } = await readSecret(io, options)
    if (problem) usageError(cmd, problem)
    const credential = { key, secretHash: await hashSecretAsync(secret), scopes, store }
    if (options.force) await storage.credentials.upsert(credential)
    else if (!await storage.credentials.create(credential)) throw errors.CredentialExists(`a credential "${key}" exists: add --force to replace its secret and scopes`)
    const replaced = exists && options.force
    auditLogger(config).info({ audit: replaced ? 'credential-replaced' : 'credential-created', key, store: (await storeDirectory(storage).ids()).get(store), scopes }, replaced ? 'credential replaced' : 'credential created')
    io.stdout.write(`credential "${key}" ${replaced ? 'replaced' : 'created'} with scopes ${scopes.join(', ')}\n`)
    if (generated) io.stdout.write(`secret: ${secret}\n(shown once: it is stored hashed)\n`)
    return 0
  })
}

async function list (io, options) {
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const all = await storage.credentials.all()
    const ids = await storeDirectory(storage).ids()
    const iso = (date) => date ? date.toISOString() : null
    const rows = all.map((c) => ({ key: c.key, store: ids.get(c.store || 0), scopes: c.scopes, createdAt: iso(c.createdAt), lastUsedAt: iso(c.lastUsedAt), bootstrap: c.key === config.adminUser }))
    if (options.json) {
      io.stdout.write(JSON.stringify(rows, null, 2) + '\n')
      return 0
    }
    if (!rows.length) {
      io.stdout.write('no credentials (every xAPI request gets 401): create one with "lrs credential create KEY"\n')
      return 0
    }
    // LAST USED: to within a minute (credential-store.js)
    io.stdout.write(formatTable(['KEY', 'STORE', 'CREATED', 'LAST USED', 'SCOPES'], rows.map((r) => [r.key + (r.bootstrap ? ' (bootstrap)' : ''), r.store, r.createdAt || '-', r.lastUsedAt || 'never', r.scopes.join(',')])))
    return 0
  })
}

async function setScopes (io, cmd, key, scopeList) {
  const scopes = scopesOf(cmd, scopeList)
  const config = configOf(io)
  assertNotBootstrap(config, key)
  return withStorage(config, async (storage) => {
    if (!await storage.credentials.setScopes(key, scopes)) throw errors.NotFound(`no credential "${key}" ("lrs credential list" shows them)`)
    auditLogger(config).info({ audit: 'credential-scopes', key, scopes }, 'credential scopes changed')
    io.stdout.write(`credential "${key}" now has scopes ${scopes.join(', ')}\n`)
    return 0
  })
}

async function revoke (io, key) {
  const config = configOf(io)
  assertNotBootstrap(config, key)
  return withStorage(config, async (storage) => {
    if (!await storage.credentials.remove(key)) throw errors.NotFound(`no credential "${key}" ("lrs credential list" shows them)`)
    auditLogger(config).info({ audit: 'credential-revoked', key }, 'credential revoked')
    io.stdout.write(`credential "${key}" revoked: a running LRS refuses it within LRS_CREDENTIAL_POLL_MS\n`)
    return 0
  })
}

function register (program, io) {
  const credential = program.command('credential')
    .summary('create, list, rescope and revoke credentials')
    .description('Create, list, rescope and revoke the credentials (key and secret) that clients authenticate with.')
    .addHelpText('after', `
Examples:
  $ lrs credential create lms --scopes statements/write,statements/read < secret.txt
  $ lrs credential create lms --generate
  $ LMS_SECRET=... lrs credential create lms --secret-env LMS_SECRET
  $ lrs credential list
  $ lrs credential scopes lms statements/read
  $ lrs credential revoke lms`)

  credential.command('create')
    .summary('store a new credential (secret from stdin, a prompt or --secret-env)')
    .description('Store a new credential. The secret comes from stdin when it is piped, from a prompt that does not echo it on a terminal, from the variable --secret-env names, or is made up with --generate; never from the command line.')
    .argument('<key>', 'the key clients send as the Basic auth user name')
    .allowExcessArguments() // so that a secret given here is refused with the reason (create)
    .option('--scopes <list>', SCOPES_HELP, 'all')
    .option('--secret-env <name>', 'read the secret from this environment variable')
    .option('--generate', 'make up a random secret and print it once')
    .option('--store <id>', 'the store it belongs to (lrs store list); the default store, or the replaced credential\'s, when omitted')
    .option('--force', 'replace the secret and scopes of an existing key')
    .addHelpText('after', `
Examples:
  $ lrs credential create lms --scopes statements/write,statements/read < secret.txt
  $ printf %s "$SECRET" | lrs credential create lms
  $ lrs credential create reporting --scopes all/read --generate
  $ lrs credential create lms --force --secret-env NEW_LMS_SECRET`)
    .action(action(function (key, options) { return create(io, this, key, options) }))

  credential.command('list')
    .summary('print every credential, without secrets')
    .description('Print every credential: key, when it was created, scopes. Never secrets.')
    .option('--json', 'as JSON')
    .addHelpText('after', '\nExamples:\n  $ lrs credential list\n  $ lrs credential list --json')
    .action(action((options) => list(io, options)))

  credential.command('scopes')
    .summary('replace the scopes of a credential')
    .description('Replace the scopes of a credential.')
    .argument('<key>', 'the credential')
    .argument('<scopes>', SCOPES_HELP)
    .addHelpText('after', '\nExamples:\n  $ lrs credential scopes lms statements/write,statements/read/mine')
    .action(action(function (key, scopes) { return setScopes(io, this, key, scopes) }))

  credential.command('revoke')
    .summary('delete a credential')
    .description('Delete a credential: a running LRS answers its requests with 401 within LRS_CREDENTIAL_POLL_MS.')
    .argument('<key>', 'the credential')
    .addHelpText('after', '\nExamples:\n  $ lrs credential revoke lms')
    .action(action((key) => revoke(io, key)))

  return credential
}

module.exports = { register }
