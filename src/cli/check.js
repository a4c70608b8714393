'use strict'

// lrs check: whether the store is sound (src/storage/index.js,
// checkStorage): the database's own check, and on SQLite that the
// statement indexes hold every statement and nothing else. Read-only, on a
// stopped or a running store. Exit code 1 when anything is wrong, each
// problem in a sentence.

const { action, configOf } = require('./common')
const { checkStorage } = require('../storage')

async function checkCommand (io, options) {
  const config = configOf(io)
  const { ok, problems, summary } = await checkStorage(config, { quick: options.quick })
  if (ok) {
    io.stdout.write(`ok: ${summary}\n`)
    return 0
  }
  for (const problem of problems) io.stdout.write(`problem: ${problem}\n`)
  io.stdout.write(`${problems.length} problem${problems.length === 1 ? '' : 's'} found${summary ? ` in ${summary}` : ''}\n`)
  return 1
}

function register (program, io) {
  return program.command('check')
    .summary('check the store: file integrity and statement indexes')
    .description('Check the store: on SQLite the file (PRAGMA integrity_check) and that the statement indexes (terms and ids, every level) hold exactly the statements; on MongoDB each collection (validate) and that every index exists. Read-only; safe beside a running LRS. Exit code 1 if anything is wrong.')
    .option('--quick', 'SQLite: quick_check instead of integrity_check (skips comparing each table with its indexes: much faster on a large file)')
    .addHelpText('after', `
Examples:
  $ lrs check
  $ lrs check --quick
  $ LRS_DATA_DIR=/backups/2026-01-01 lrs check   # a copy of a store`)
    .action(action((options) => checkCommand(io, options)))
}

module.exports = { register }
