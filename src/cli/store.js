'use strict'

// lrs store create|rename|retention|forward|delete|list: the stores, as /admin/stores manages them
// (src/admin/stores-routes.js), from a shell on the host. Each change
// writes an audit line (audit.js).

const { errors } = require('../errors')
const { action, usageError, configOf, withStorage, readAll } = require('./common')
const { STORE_ID, storeDirectory } = require('../stores/store-directory')
const { auditLogger } = require('./audit')
const { formatTable } = require('./table')
const { upstreamListProblem, replaceStoreUpstreams } = require('../forwarding/store-upstreams')
const { parseUpstream } = require('../forwarding/upstreams')
const { sealedSecrets } = require('../auth/sealed-secrets')

async function create (io, cmd, id, options) {
  if (!new RegExp(STORE_ID).test(id)) usageError(cmd, `a store id has 1 to 63 lower-case letters, digits or dashes, starting with a letter or digit (got "${id}")`)
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const name = options.name || id
    const made = await storage.stores.create({ id, name })
    if (made === 'taken') throw errors.StoreExists(`a store "${id}" exists`)
    if (made === 'full') throw errors.StoreLimit()
    auditLogger(config).info({ audit: 'store-created', store: id }, 'store created')
    io.stdout.write(`store "${id}" created: give it credentials with "lrs credential create KEY --store ${id}"\n`)
    return 0
  })
}

async function rename (io, id, name) {
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    if (!await storage.stores.rename({ id, name })) throw errors.NotFound(`no store "${id}" ("lrs store list" shows them)`)
    auditLogger(config).info({ audit: 'store-renamed', store: id }, 'store renamed')
    io.stdout.write(`store "${id}" is now named "${name}"\n`)
    return 0
  })
}

// DAYS, or `off` (kept for good).
async function retention (io, cmd, id, days) {
  const value = days === 'off' ? null : Number(days)
  if (value !== null && !(Number.isInteger(value) && value >= 1 && value <= 36500)) usageError(cmd, `the days are a whole number from 1 to 36500, or "off" (got "${days}")`)
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    if (!await storage.stores.setRetention({ id, days: value })) throw errors.NotFound(`no store "${id}" ("lrs store list" shows them)`)
    auditLogger(config).info({ audit: 'store-retention', store: id, retentionDays: value }, 'store retention set')
    io.stdout.write(value === null ? `store "${id}" keeps its statements for good\n` : `store "${id}" keeps its statements ${value} days after they were stored; the LRS removes older ones every LRS_RETENTION_INTERVAL_S\n`)
    return 0
  })
}

// The URLs come on stdin, a line each: they hold the upstreams' credentials,
// which a command line would leave in shell history and show to `ps`.
async function forward (io, cmd, id, options) {
  let urls = []
  if (!options.none) {
    if (io.stdin.isTTY) usageError(cmd, 'pipe the upstream URLs on stdin, one a line (they hold credentials, which a command line would show), or give --none')
    urls = (await readAll(io.stdin)).split(/\r?\n/).map((line) => line.trim()).filter(Boolean)
    if (!urls.length) usageError(cmd, 'no URL on stdin: give --none to stop forwarding')
    const problem = upstreamListProblem(urls, (i) => `line ${i + 1}`)
    if (problem) usageError(cmd, problem)
  }
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const store = await storeDirectory(storage).byId(id)
    if (!await replaceStoreUpstreams(storage, store, urls, sealedSecrets({ current: config.secretsKey, old: config.secretsOldKeys }))) throw errors.NotFound(`no store "${id}" ("lrs store list" shows them)`)
    auditLogger(config).info({ audit: 'store-forwarding', store: id, upstreams: urls.length }, 'store upstreams set')
    io.stdout.write(urls.length
      ? `store "${id}" forwards the statements it stores from now on to ${urls.map((u) => parseUpstream(u).shown).join(', ')}; the running LRS takes this within LRS_CREDENTIAL_POLL_MS\n`
      : `store "${id}" forwards to no upstream of its own; what was queued for its upstreams is dropped\n`)
    return 0
  })
}

// A deletion cannot be undone: --dry-run shows what would go, --yes deletes.
async function remove (io, cmd, id, options) {
  if (options.dryRun === options.yes) usageError(cmd, options.yes ? '--dry-run and --yes exclude each other' : 'a deletion cannot be undone: add --dry-run to see what would be removed, or --yes to delete the store')
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const directory = storeDirectory(storage)
    const store = await directory.byId(id)
    if (store.number === 0) throw errors.StoreNotDeletable('the default store cannot be deleted')
    const holds = await directory.describe(store)
    const what = `${holds.statements} statements, ${holds.documents} documents (${holds.documentBytes} bytes), ${holds.attachments} attachments (${holds.attachmentBytes} bytes), ${holds.credentials} credentials`
    if (options.dryRun) {
      io.stdout.write(`deleting store "${id}" would remove ${what}\n`)
      return 0
    }
    if (!await storage.stores.remove({ id })) throw errors.NotFound(`no store "${id}"`)
    auditLogger(config).info({ audit: 'store-deleted', store: id, statements: holds.statements, documents: holds.documents, attachments: holds.attachments, credentials: holds.credentials }, 'store deleted')
    io.stdout.write(`store "${id}" deleted (${what}): the LRS purges its data in the background; "lrs store list" shows it until it is gone\n`)
    return 0
  })
}

async function list (io, options) {
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const directory = storeDirectory(storage)
    const rows = await directory.describeAll(await directory.all())
    const deleting = await directory.deleting()
    if (options.json) {
      io.stdout.write(JSON.stringify(rows, null, 2) + '\n')
      return 0
    }
    const mib = (bytes) => (bytes / 1048576).toFixed(1)
    io.stdout.write(formatTable(['ID', 'STATEMENTS', 'DOCUMENTS', 'ATTACHMENTS', 'MIB', 'CREDENTIALS', 'KEPT (DAYS)', 'UPSTREAMS', 'CREATED', 'NAME'],
      rows.map((r) => [r.id, r.statements, r.documents, r.attachments, mib(r.documentBytes + r.attachmentBytes), r.credentials, r.retentionDays || 'always', r.forwardTo.length, r.createdAt || '-', r.name])))
    if (deleting.length) {
      io.stdout.write('\nDeleted, being purged:\n' + formatTable(['ID', 'STATEMENTS LEFT', 'DELETED', 'NAME'], deleting.map((d) => [d.id, d.statementsLeft, d.deletedAt, d.name])))
    }
    return 0
  })
}

function register (program, io) {
  const store = program.command('store')
    .summary('create, rename, delete and list stores, and set their retention and upstreams')
    .description('Create and list stores: partitions of the LRS whose statements, documents and attachments no other store\'s credentials can reach. Each credential belongs to one (lrs credential create --store).')
    .addHelpText('after', '\nExamples:\n  $ lrs store create acme --name "ACME Corp"\n  $ lrs store rename acme "ACME Corporation"\n  $ lrs store delete acme --dry-run\n  $ lrs store list')

  store.command('create')
    .summary('make a new, empty store')
    .description('Make a new, empty store. Its id names it for good in the API and the command line.')
    .argument('<id>', 'lower-case letters, digits and dashes')
    .option('--name <name>', 'what people see (the id when omitted)')
    .addHelpText('after', '\nExamples:\n  $ lrs store create acme --name "ACME Corp"')
    .action(action(function (id, options) { return create(io, this, id, options) }))

  store.command('rename')
    .summary('change the name people see (the id stays)')
    .description('Change the name people see; the id, which names the store in the API and here, stays.')
    .argument('<id>', 'the store')
    .argument('<name>', 'its new name')
    .addHelpText('after', '\nExamples:\n  $ lrs store rename acme "ACME Corporation"')
    .action(action((id, name) => rename(io, id, name)))

  store.command('retention')
    .summary('keep a store\'s statements N days, or for good')
    .description('Keep the store\'s statements DAYS days after they were stored: the running LRS removes older ones in the background (every LRS_RETENTION_INTERVAL_S), a voided statement with its voiding statements. "off": kept for good.')
    .argument('<id>', 'the store')
    .argument('<days>', 'whole days (1 to 36500), or off')
    .addHelpText('after', '\nExamples:\n  $ lrs store retention acme 365\n  $ lrs store retention acme off')
    .action(action(function (id, days) { return retention(io, this, id, days) }))

  store.command('forward')
    .summary('set the upstream LRSs a store\'s statements are forwarded to')
    .description('Replace the store\'s own upstream LRSs (besides LRS_FORWARD_URLS) with the URLs read from stdin, one a line (https://user:pass@host/xapi; at most 5, http or https, no query): never from the command line, which shell history keeps and ps shows. Statements the store stores from then on are forwarded to them, with their ids; what was queued for an upstream no longer listed is dropped. --none: no upstream of its own. The credentials are kept in the database and never shown.')
    .argument('<id>', 'the store')
    .option('--none', 'forward to no upstream of its own')
    .addHelpText('after', '\nExamples:\n  $ lrs store forward acme < upstreams.txt\n  $ printf \'%s\\n\' "$UPSTREAM_URL" | lrs store forward acme\n  $ lrs store forward acme --none')
    .action(action(function (id, options) { return forward(io, this, id, options) }))

  store.command('delete')
    .summary('delete a store and everything in it')
    .description('Delete a store: its statements, documents, attachments and credentials. It is gone for every request at once (its id is free again); the LRS purges its data in the background. Cannot be undone: --dry-run shows what would go, --yes deletes. The default store cannot be deleted.')
    .argument('<id>', 'the store')
    .option('--dry-run', 'print what would be removed; remove nothing')
    .option('--yes', 'delete it')
    .addHelpText('after', '\nExamples:\n  $ lrs store delete acme --dry-run\n  $ lrs store delete acme --yes')
    .action(action(function (id, options) { return remove(io, this, id, options) }))

  store.command('list')
    .summary('print every store with what it holds')
    .description('Print every store: id, statements stored (voided ones included), documents, attachments, the MiB of both, credentials, retention, how many upstream LRSs of its own it forwards to (--json: which, without their credentials), when it was made, name; then the deleted stores still being purged.')
    .option('--json', 'as JSON')
    .addHelpText('after', '\nExamples:\n  $ lrs store list\n  $ lrs store list --json')
    .action(action((options) => list(io, options)))

  return store
}

module.exports = { register }
