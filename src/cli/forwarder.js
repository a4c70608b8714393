'use strict'

// lrs forwarder list|show|create|change|pause|resume|remove|dead-letters:
// forwarders (src/forwarding/forwarders.js), as /admin/forwarders manages
// them, from a shell on the host and for any store. The rules, the writes,
// the audit lines and what is shown are forwarder-admin.js's, the API's
// own. A change moves the change mark every worker of every host polls, so
// a running LRS takes it within LRS_CREDENTIAL_POLL_MS, without a restart.
//
// A definition is the API's request body, as JSON, read from a file
// (--definition FILE) or stdin: it may hold a password, token or signing
// secret, which a command line would leave in shell history and show to
// `ps`. Secrets are sealed under LRS_SECRETS_KEY (the running LRS's key:
// the CLI runs with the LRS's configuration) and never printed; a webhook's
// signing secret made here is printed once, as the API answers it once.
//
// LRS_FORWARD_FORBIDDEN_HOSTS holds here too, although the operator runs
// this: the same rules wherever a forwarder is made, and the running LRS
// checks every forwarder's target against that list before each delivery
// (forwarder.js), so a forwarder made here to a forbidden host would only
// turn its statements into dead letters. Refused at once, it says why; an
// operator who means to send there changes the list (or LRS_FORWARD_URLS,
// which is not checked).

const fs = require('node:fs')
const { errors } = require('../errors')
const { action, usageError, configOf, withStorage, storeNumber, readAll } = require('./common')
const { auditLogger } = require('./audit')
const { storeDirectory } = require('../stores/store-directory')
const { formatTable } = require('./table')
const { forwarderAdmin, MAX_DEAD_LETTERS } = require('../forwarding/forwarder-admin')
const { sealedSecrets } = require('../auth/sealed-secrets')
const { forbiddenHosts } = require('../forwarding/target-hosts')
const { createStatementValidator } = require('../validation/statement-validator')
const { describeJsonError } = require('../validation/json-syntax-error')
const { isJsonObject } = require('../lib/json-object')

const POLL = 'within LRS_CREDENTIAL_POLL_MS'

// The store's forwarders' manager, from the configuration as the server
// builds it (src/services.js). No `changed`: the workers poll the mark.
function adminOf (config, storage) {
  return forwarderAdmin({
    storage,
    sealed: sealedSecrets({ current: config.secretsKey, old: config.secretsOldKeys }),
    hosts: forbiddenHosts(config.forwardForbiddenHosts),
    validator: createStatementValidator(config)
  })
}

// The audit line of a change, naming the forwarder's store.
async function auditOf (config, storage, number) {
  return auditLogger(config).child({ store: (await storeDirectory(storage).ids()).get(number) })
}

// The definition: JSON from FILE, or from stdin ('-' or no --definition).
// Not JSON, or not an object: a usage error (exit 2); what the LRS refuses
// in it is the API's 400 (exit 1, LRS_ERR_REQUEST_INVALID).
async function readDefinition (io, cmd, { definition: file, name }) {
  let text
  if (file !== undefined && file !== '-') {
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch (err) {
      throw new Error(`cannot read the definition ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`)
    }
  } else {
    if (io.stdin.isTTY) usageError(cmd, 'pipe the forwarder\'s definition on stdin as JSON, or give --definition FILE (it may hold secrets, which a command line would show)')
    text = await readAll(io.stdin)
  }
  const where = file !== undefined && file !== '-' ? file : 'stdin'
  if (!text.trim()) usageError(cmd, `no definition on ${where}: give the forwarder as JSON, e.g. {"name": "warehouse", "target": {"kind": "lrs", "url": "https://lrs.example.com/xapi"}}`)
  let body
  try {
    body = JSON.parse(text)
  } catch {
    usageError(cmd, `the definition on ${where} is not JSON: ${describeJsonError(text)}`)
  }
  if (!isJsonObject(body)) usageError(cmd, `the definition on ${where} must be a JSON object: {"name": ..., "target": {...}}`)
  if (name !== undefined) body.name = name
  return body
}

// Prints `value` as JSON; the exit code, 0.
function json (io, value) {
  io.stdout.write(JSON.stringify(value, null, 2) + '\n')
  return 0
}
const targetOf = (v) => `${v.target.kind} ${v.target.url}`
const plural = (n, one, many = one + 's') => `${n} ${n === 1 ? one : many}`

// What `show` prints: one line a field, never a secret (the view has none).
function describe (v) {
  const t = v.target
  const target = t.kind === 'lrs'
    ? `${targetOf(v)} (xAPI ${t.xapiVersion}; auth ${t.auth.type}${t.auth.username ? `, username ${t.auth.username}` : ''}${t.auth.clientId ? `, client ${t.auth.clientId} at ${t.auth.tokenUrl}` : ''})`
    : `${targetOf(v)} (${plural(t.secrets, 'signing secret')})`
  const d = v.delivery
  const fields = [
    ['id', v.id],
    ['name', v.name],
    ['store', v.store],
    ['state', v.state],
    ['target', target],
    ['filter', Object.keys(v.filter).length ? JSON.stringify(v.filter) : 'every statement of the store'],
    ['batch size', v.batchSize],
    ['retry', `backoff ${v.retry.initialBackoffMs} ms doubling to ${v.retry.maxBackoffMs} ms; ${v.retry.giveUpAfterS ? `dead letters after ${v.retry.giveUpAfterS} s` : 'never gives up'}`],
    ['delivery', `${d.status}; ${d.delivered} delivered${d.lastDeliveredAt ? `, the last at ${d.lastDeliveredAt}` : ''}`],
    ['queued', d.queued ? `${d.queued} (the oldest since ${d.oldestQueuedAt}, ${d.lagSeconds} s)` : 0],
    ['dead letters', d.deadLetters],
    ...(d.lastError ? [['last error', `${d.lastError} at ${d.lastErrorAt}${d.failingSince ? `, failing since ${d.failingSince}` : ''}`]] : []),
    ['revision', `${v.revision} (changed ${v.updatedAt})`],
    ['created', v.createdAt]
  ]
  const width = Math.max(...fields.map(([label]) => label.length)) + 1
  return fields.map(([label, value]) => `${(label + ':').padEnd(width)}  ${value}\n`).join('')
}

async function list (io, options) {
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const admin = adminOf(config, storage)
    const store = options.store === undefined ? null : await storeNumber(storage, options.store)
    const shown = await admin.showAll(await admin.list(store))
    if (options.json) return json(io, shown)
    if (!shown.length) {
      io.stdout.write(`no forwarders${options.store === undefined ? '' : ` in store "${options.store}"`}: make one with "lrs forwarder create < forwarder.json"\n`)
      return 0
    }
    io.stdout.write(formatTable(['ID', 'STORE', 'STATE', 'DELIVERY', 'QUEUED', 'DEAD', 'DELIVERED', 'TARGET', 'NAME'],
      shown.map((v) => [v.id, v.store, v.state, v.delivery.status, v.delivery.queued, v.delivery.deadLetters, v.delivery.delivered, targetOf(v), v.name])))
    return 0
  })
}

async function show (io, id, options) {
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const admin = adminOf(config, storage)
    const shown = await admin.show(await admin.one(id))
    if (options.json) json(io, shown)
    else io.stdout.write(describe(shown))
    return 0
  })
}

async function create (io, cmd, options) {
  const body = await readDefinition(io, cmd, options)
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const admin = adminOf(config, storage)
    const store = await storeNumber(storage, options.store)
    const made = await admin.create({ store, body, log: await auditOf(config, storage, store) })
    if (!made) throw errors.NotFound('the store was deleted meanwhile')
    const shown = await admin.show(made.forwarder)
    if (options.json) return json(io, { ...shown, ...(made.shownSecrets && { secrets: made.shownSecrets }) })
    io.stdout.write(`forwarder "${shown.id}" ("${shown.name}", to ${targetOf(shown)}) created in store "${shown.store}": the statements the store stores from now on that its filter picks are queued for it; ` +
      (shown.state === 'paused' ? `it delivers none until "lrs forwarder resume ${shown.id}"\n` : `the running LRS delivers them once it sees the change, ${POLL}\n`))
    if (made.shownSecrets) io.stdout.write(`signing secret: ${made.shownSecrets.join(' ')}\n(shown once: the LRS keeps it sealed; give it to the webhook's receiver)\n`)
    return 0
  })
}

async function change (io, cmd, id, options) {
  const body = await readDefinition(io, cmd, options)
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const admin = adminOf(config, storage)
    const found = await admin.one(id)
    const shown = await admin.show(await admin.replace(found, body, { log: await auditOf(config, storage, found.store) }))
    if (options.json) return json(io, shown)
    io.stdout.write(`forwarder "${id}" changed (revision ${shown.revision}): "${shown.name}", to ${targetOf(shown)}, ${shown.state}; the running LRS takes the change ${POLL}, a new filter for the statements stored from then on\n`)
    return 0
  })
}

async function pauseOrResume (io, id, paused) {
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const admin = adminOf(config, storage)
    const found = await admin.one(id)
    const shown = await admin.show(await admin.setPaused(found, paused, { log: await auditOf(config, storage, found.store) }))
    io.stdout.write(paused
      ? `forwarder "${id}" paused: the running LRS stops delivering ${POLL}; the statements it picks are still queued (${shown.delivery.queued} now) and go once it is resumed\n`
      : `forwarder "${id}" resumed: the running LRS delivers its queue (${plural(shown.delivery.queued, 'statement')} now) ${POLL}\n`)
    return 0
  })
}

async function remove (io, id) {
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const admin = adminOf(config, storage)
    const found = await admin.one(id)
    const before = await admin.show(found)
    await admin.remove(found, { log: await auditOf(config, storage, found.store) })
    io.stdout.write(`forwarder "${id}" ("${before.name}") removed from store "${before.store}", with ${plural(before.delivery.queued, 'queued statement')} and ${plural(before.delivery.deadLetters, 'dead letter')}; the running LRS stops delivering ${POLL}\n`)
    return 0
  })
}

async function deadLetters (io, cmd, id, options) {
  if (options.replay && options.discard) usageError(cmd, '--replay and --discard exclude each other')
  const limit = options.limit === undefined ? MAX_DEAD_LETTERS : Number(options.limit)
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= MAX_DEAD_LETTERS)) usageError(cmd, `--limit is a whole number from 1 to ${MAX_DEAD_LETTERS} (got "${options.limit}")`)
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const admin = adminOf(config, storage)
    const found = await admin.one(id)
    const act = options.replay ? 'replay' : options.discard ? 'discard' : null
    if (act) {
      const result = await admin.resolveDeadLetters(found, act, { limit, log: await auditOf(config, storage, found.store) })
      if (options.json) return json(io, result)
      io.stdout.write(act === 'replay'
        ? `${plural(result.replayed, 'dead letter')} of forwarder "${id}" put back in its queue: the running LRS delivers them again\n`
        : `${plural(result.discarded, 'dead letter')} of forwarder "${id}" discarded (the statements stay stored)\n`)
      return 0
    }
    const rows = await admin.deadLetters(found, { limit })
    if (options.json) return json(io, rows)
    if (!rows.length) {
      io.stdout.write(`forwarder "${id}" has no dead letters\n`)
      return 0
    }
    const at = (d) => d instanceof Date ? d.toISOString() : d
    io.stdout.write(formatTable(['STATEMENT', 'STATUS', 'FAILED', 'QUEUED', 'REASON'], rows.map((d) => [d.statementId, d.status ?? '-', at(d.failedAt), at(d.enqueuedAt), d.reason ?? '-'])))
    return 0
  })
}

const DEFINITION_HELP = 'the forwarder as JSON, the body of POST /admin/forwarders (docs/forwarders.md), from this file; "-" or omitted: from stdin'

function register (program, io) {
  const forwarder = program.command('forwarder')
    .summary('make, list, change, pause, resume and remove forwarders, and their dead letters')
    .description('Forwarders send a store\'s statements on as they are stored, to another LRS or a webhook: the same as /admin/forwarders, for any store. A definition is JSON (the API\'s request body) read from a file or stdin, never from the command line, since it may hold secrets; secrets are sealed under LRS_SECRETS_KEY and never printed. LRS_FORWARD_FORBIDDEN_HOSTS applies. A running LRS takes every change within LRS_CREDENTIAL_POLL_MS.')
    .addHelpText('after', `
Examples:
  $ lrs forwarder create --store acme < warehouse.json
  $ lrs forwarder list
  $ lrs forwarder show 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e
  $ lrs forwarder pause 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e
  $ lrs forwarder dead-letters 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e --replay`)

  forwarder.command('list')
    .summary('print the forwarders with their queues, without secrets')
    .description('Print every store\'s forwarders (--store: one store\'s): id, store, state (active or paused), how delivery goes (healthy, retrying, failing, paused), statements queued, dead letters, statements delivered, target, name. Never a secret.')
    .option('--store <id>', 'only this store\'s (lrs store list)')
    .option('--json', 'as JSON, each as GET /admin/forwarders/ID shows it')
    .addHelpText('after', '\nExamples:\n  $ lrs forwarder list\n  $ lrs forwarder list --store acme --json')
    .action(action((options) => list(io, options)))

  forwarder.command('show')
    .summary('print one forwarder, with how its delivery goes')
    .description('Print one forwarder: its target (who it authenticates as, never the secret), filter, batch size, retry, and its delivery: status, delivered, queued, the lag, dead letters, the last error.')
    .argument('<id>', 'the forwarder (lrs forwarder list)')
    .option('--json', 'as JSON, as GET /admin/forwarders/ID shows it')
    .addHelpText('after', '\nExamples:\n  $ lrs forwarder show 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e\n  $ lrs forwarder show 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e --json')
    .action(action((id, options) => show(io, id, options)))

  forwarder.command('create')
    .summary('make a forwarder from a JSON definition (file or stdin)')
    .description('Make a forwarder in a store (the default store when --store is omitted): statements it stores from now on that the filter picks are queued for it. The definition is the body of POST /admin/forwarders, as JSON, from --definition FILE or stdin: {"name", "target": {"kind": "lrs" | "webhook", "url", "auth", "xapiVersion", "secrets"}, "filter", "batchSize", "retry", "paused"}. Secrets need LRS_SECRETS_KEY; a webhook made without one gets a signing secret, printed once. A definition that is not JSON exits 2; one the LRS refuses (a bad field, a target LRS_FORWARD_FORBIDDEN_HOSTS forbids) exits 1 with the reason.')
    .option('--store <id>', 'the store whose statements it forwards (lrs store list); the default store when omitted')
    .option('--definition <file>', DEFINITION_HELP)
    .option('--name <name>', 'its name (instead of the definition\'s)')
    .option('--json', 'print it as JSON, as the API answers')
    .addHelpText('after', `
Examples:
  $ lrs forwarder create --store acme < warehouse.json
  $ lrs forwarder create --definition hook.json --name "BI webhook"
  $ printf '{"name":"mirror","target":{"kind":"lrs","url":"https://lrs.example.com/xapi","auth":{"type":"bearer","token":"%s"}}}' "$TOKEN" | lrs forwarder create

warehouse.json:
  {"name": "warehouse",
   "target": {"kind": "lrs", "url": "https://lrs.example.org/xapi",
              "auth": {"type": "basic", "username": "u", "password": "p"}},
   "filter": {"verb": "http://adlnet.gov/expapi/verbs/completed"},
   "retry": {"initialBackoffMs": 500, "maxBackoffMs": 60000, "giveUpAfterS": 86400}}`)
    .action(action(function (options) { return create(io, this, options) }))

  forwarder.command('change')
    .summary('replace a forwarder\'s definition (secrets left out are kept)')
    .description('Replace a forwarder\'s definition with the whole one given, as PUT /admin/forwarders/ID: secrets left out are kept (the same kind of target and auth); a new filter applies to the statements stored from then on. Refused (exit 1) when it was changed meanwhile.')
    .argument('<id>', 'the forwarder')
    .option('--definition <file>', DEFINITION_HELP)
    .option('--name <name>', 'its name (instead of the definition\'s)')
    .option('--json', 'print it as JSON, as the API answers')
    .addHelpText('after', '\nExamples:\n  $ lrs forwarder change 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e < warehouse.json')
    .action(action(function (id, options) { return change(io, this, id, options) }))

  forwarder.command('pause')
    .summary('stop delivering; statements keep being queued')
    .description('Stop delivering: the statements the forwarder picks keep being queued, and go once it is resumed.')
    .argument('<id>', 'the forwarder')
    .addHelpText('after', '\nExamples:\n  $ lrs forwarder pause 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e')
    .action(action((id) => pauseOrResume(io, id, true)))

  forwarder.command('resume')
    .summary('deliver again, the queue first')
    .description('Deliver again: what was queued while it was paused goes first.')
    .argument('<id>', 'the forwarder')
    .addHelpText('after', '\nExamples:\n  $ lrs forwarder resume 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e')
    .action(action((id) => pauseOrResume(io, id, false)))

  forwarder.command('remove')
    .summary('remove a forwarder with its queue and dead letters')
    .description('Remove a forwarder with its queue and its dead letters (the statements stay stored); what was queued is not delivered.')
    .argument('<id>', 'the forwarder')
    .addHelpText('after', '\nExamples:\n  $ lrs forwarder remove 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e')
    .action(action((id) => remove(io, id)))

  forwarder.command('dead-letters')
    .summary('list a forwarder\'s dead letters, or replay or discard them')
    .description('Print the statements the forwarder\'s target refused for good, or that it gave up on (retry.giveUpAfterS), with why. --replay puts them back in its queue; --discard drops them (the statements stay stored).')
    .argument('<id>', 'the forwarder')
    .option('--replay', 'put them back in the queue, to be delivered again')
    .option('--discard', 'drop them')
    .option('--limit <n>', `at most this many (1 to ${MAX_DEAD_LETTERS}; default ${MAX_DEAD_LETTERS})`)
    .option('--json', 'as JSON')
    .addHelpText('after', '\nExamples:\n  $ lrs forwarder dead-letters 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e\n  $ lrs forwarder dead-letters 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e --replay\n  $ lrs forwarder dead-letters 0b6c5e0e-7d8f-4a52-9a51-2f0f7c1f3b8e --discard --limit 100')
    .action(action(function (id, options) { return deadLetters(io, this, id, options) }))

  return forwarder
}

module.exports = { register }
