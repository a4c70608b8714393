'use strict'

// lrs migrate: the SQLite store the configuration names (LRS_DATA_DIR)
// moved into a MongoDB database, everything kept (src/transfer/migrate.js);
// --verify compares the two afterwards. The LRS must be stopped: the move
// refuses a store whose writer process answers, and holds the file's
// write lock while it runs (src/storage/sqlite/migration-source.js).

const { action, usageError, configOf } = require('./common')
const { loadConfig } = require('../config')
const { createToolLogger } = require('../logger')
const { openMigrationSource, openMigrationTarget } = require('../storage')
const { migrate, verifyMigration } = require('../transfer/migrate')

const REACH_MS = 30000
const MOVE_QUERY_TIMEOUT_MS = 3600000
const MOVE_WRITE_TIMEOUT_MS = 600000

const PHASE_NAMES = {
  settings: 'settings',
  stores: 'stores',
  credentials: 'credentials',
  forwarders: 'forwarders',
  savedReports: 'saved reports',
  documents: 'documents',
  attachments: 'attachments',
  statements: 'statements',
  pendingFlags: 'voiding flags of statements not stored',
  outbox: 'forwarding entries',
  deadLetters: 'dead letters'
}

// The target's URI: --to-mongodb, or the variable --to-mongodb-env names
// (a URI with a password on a command line shows in `ps`).
function targetUri (io, cmd, options) {
  if (options.toMongodb && options.toMongodbEnv) usageError(cmd, '--to-mongodb and --to-mongodb-env exclude each other')
  const uri = options.toMongodbEnv ? io.env[options.toMongodbEnv] : options.toMongodb
  if (!uri) usageError(cmd, options.toMongodbEnv ? `the variable ${options.toMongodbEnv} (--to-mongodb-env) is not set` : 'name the target: --to-mongodb URI (or --to-mongodb-env NAME)')
  if (!/^mongodb(\+srv)?:\/\//.test(uri)) usageError(cmd, 'the target is a MongoDB connection string (mongodb://host:27017)')
  return uri
}

async function migrateCommand (io, cmd, options) {
  const uri = targetUri(io, cmd, options)
  const config = configOf(io)
  if (config.storage !== 'sqlite') usageError(cmd, 'the configuration names MongoDB (MONGODB_URI): lrs migrate moves the SQLite store of LRS_DATA_DIR; unset MONGODB_URI')
  // A move's reads are scans of whole collections and its writes chunks of
  // a thousand statements, not the requests the LRS bounds: on FerretDB one
  // scan of a million statements takes minutes (maxTimeMS, and the socket
  // timeout, follow LRS_QUERY_TIMEOUT_MS; the wait for a pooled connection
  // LRS_WRITE_TIMEOUT_MS).
  const targetConfig = loadConfig({
    ...io.env,
    MONGODB_URI: uri,
    MONGODB_DB: options.db || io.env.MONGODB_DB || 'lrs',
    LRS_QUERY_TIMEOUT_MS: String(Math.max(Number(io.env.LRS_QUERY_TIMEOUT_MS) || 0, MOVE_QUERY_TIMEOUT_MS)),
    LRS_WRITE_TIMEOUT_MS: String(Math.max(Number(io.env.LRS_WRITE_TIMEOUT_MS) || 0, MOVE_WRITE_TIMEOUT_MS))
  })
  const logger = createToolLogger({ ...config, logLevel: 'error' })
  const source = openMigrationSource(config, logger, { lock: !options.verify })
  const target = openMigrationTarget(targetConfig, logger)
  const where = `${source.file} -> ${uri.replace(/\/\/[^@/]*@/, '//****@')} database ${targetConfig.mongodbDb}`
  try {
    await source.open()
    await reachable(target, where)
    return options.verify ? await verify(io, source, target, where) : await move(io, source, target, where)
  } finally {
    await source.close()
    await target.close()
  }
}

// The storage retries a database that does not answer for as long as it
// takes (an LRS waits for its database); a command says so and stops.
async function reachable (target, where) {
  let timer
  const late = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${where}: MongoDB did not answer within ${REACH_MS / 1000} s`)), REACH_MS)
  })
  try {
    await Promise.race([target.ready, late])
  } finally {
    clearTimeout(timer)
  }
}

async function move (io, source, target, where) {
  const tty = io.stderr.isTTY
  let lastShown = 0
  const started = Date.now()
  const result = await migrate({
    source,
    target,
    onProgress ({ phase, rows, total }) {
      if (!tty || Date.now() - lastShown < 250) return
      lastShown = Date.now()
      io.stderr.write(`\r${PHASE_NAMES[phase]}: ${rows.toLocaleString('en')}${total ? ` of ${total.toLocaleString('en')}` : ''}   `)
    },
    onPhase (phase, { rows, seconds }) {
      if (tty) io.stderr.write('\r\x1b[K')
      const rate = phase === 'statements' && seconds > 0 ? ` (${Math.round(rows / seconds).toLocaleString('en')}/s)` : ''
      io.stdout.write(`${PHASE_NAMES[phase]}: ${rows} copied in ${seconds.toFixed(1)} s${rate}\n`)
    }
  })
  if (result.alreadyDone) {
    io.stdout.write(`${where}: moved already (nothing to do); "lrs migrate --verify" compares the two\n`)
    return 0
  }
  const from = result.resumed ? ` (resumed at ${PHASE_NAMES[result.resumed.phase]}${result.resumed.after !== null ? ', after the last chunk recorded' : ''})` : ''
  io.stdout.write(`moved ${where} in ${((Date.now() - started) / 1000).toFixed(1)} s${from}; next: lrs migrate --verify, then start the LRS with MONGODB_URI\n`)
  return 0
}

async function verify (io, source, target, where) {
  const started = Date.now()
  const report = await verifyMigration({
    source,
    target,
    onProgress: ({ kind, rows }) => { if (io.stderr.isTTY) io.stderr.write(`\r${PHASE_NAMES[kind]}: ${rows.toLocaleString('en')} compared   `) }
  })
  if (io.stderr.isTTY) io.stderr.write('\r\x1b[K')
  let differences = 0
  for (const r of report) {
    differences += r.differences
    io.stdout.write(`${PHASE_NAMES[r.kind]}: ${r.source} in the source, ${r.target} in the target, ${r.differences ? `${r.differences} differences` : 'the same'}\n`)
    for (const example of r.examples) io.stdout.write(`  e.g. ${example}\n`)
  }
  io.stdout.write(`${where}: ${differences ? `${differences} differences` : 'the same'} (compared in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`)
  return differences ? 1 : 0
}

function register (program, io) {
  return program.command('migrate')
    .summary('move the SQLite store into MongoDB, everything kept')
    .description('Move the SQLite store of LRS_DATA_DIR into an empty MongoDB database: stores, credentials (their secrets keep working), statements (ids, stored, authority, voiding), attachments, State/Activity Profile/Agent Profile documents (ETags, content types), forwarding queues and dead letters, retention, and the keys of more links and tokens. Stop the LRS first: the move refuses a store whose writer answers and holds the file\'s write lock while it runs. A move cut short goes on where it stopped when run again. --verify compares every kind in the two and exits 1 on a difference.')
    .option('--to-mongodb <uri>', 'the target: a MongoDB connection string')
    .option('--to-mongodb-env <name>', 'the variable that holds it (keeps a password out of ps and shell history)')
    .option('--db <name>', 'the target database (MONGODB_DB, or lrs)')
    .option('--verify', 'compare the two storages kind by kind, change nothing')
    .addHelpText('after', `
Examples:
  $ lrs migrate --to-mongodb mongodb://db.example:27017 --db lrs          # with the LRS stopped (pm2 stop all)
  $ lrs migrate --to-mongodb mongodb://db.example:27017 --db lrs --verify
  $ lrs migrate --to-mongodb-env TARGET   # TARGET='mongodb://lrs:secret@db.example:27017/?authSource=admin'`)
    .action(action(function (options) { return migrateCommand(io, this, options) }))
}

module.exports = { register }
