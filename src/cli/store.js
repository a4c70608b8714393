'use strict'

// lrs store create|rename|list: the stores, as /admin/stores manages them
// (src/admin/stores-routes.js), from a shell on the host. Each change
// writes an audit line (audit.js).

const { errors } = require('../errors')
const { action, usageError, configOf, withStorage } = require('./common')
const { STORE_ID, storeDirectory } = require('../stores/store-directory')
const { auditLogger } = require('./audit')
const { formatTable } = require('./table')

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

async function list (io, options) {
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const directory = storeDirectory(storage)
    const rows = await Promise.all((await directory.all()).map(directory.describe))
    if (options.json) io.stdout.write(JSON.stringify(rows, null, 2) + '\n')
    else io.stdout.write(formatTable(['ID', 'STATEMENTS', 'CREATED', 'NAME'], rows.map((r) => [r.id, r.statements, r.createdAt || '-', r.name])))
    return 0
  })
}

function register (program, io) {
  const store = program.command('store')
    .summary('create, rename and list stores')
    .description('Create and list stores: partitions of the LRS whose statements, documents and attachments no other store\'s credentials can reach. Each credential belongs to one (lrs credential create --store).')
    .addHelpText('after', '\nExamples:\n  $ lrs store create acme --name "ACME Corp"\n  $ lrs store rename acme "ACME Corporation"\n  $ lrs store list')

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

  store.command('list')
    .summary('print every store with its statements')
    .description('Print every store: id, statements stored (voided ones included), when it was made, name.')
    .option('--json', 'as JSON')
    .addHelpText('after', '\nExamples:\n  $ lrs store list\n  $ lrs store list --json')
    .action(action((options) => list(io, options)))

  return store
}

module.exports = { register }
