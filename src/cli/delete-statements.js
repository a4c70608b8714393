'use strict'

// lrs delete-statements: a store's statements by when they were stored, as
// DELETE /admin/statements does it (src/admin/delete-statements.js). It
// cannot be undone, so the command line says which: --dry-run counts what
// would go, --yes deletes. The audit line has the range and the counts.

const { action, usageError, configOf, withStorage, storeNumber } = require('./common')
const { toUtcTimestamp, isValidTimestamp } = require('../validation/formats')
const { deleteStatements, previewDeletion } = require('../admin/delete-statements')
const { auditLogger } = require('./audit')

function instant (cmd, name, value) {
  if (value === undefined) return null
  if (!isValidTimestamp(value)) usageError(cmd, `--${name} is not an ISO 8601 timestamp with a time zone (got "${value}")`)
  return new Date(Date.parse(toUtcTimestamp(value)))
}

async function deleteCommand (io, cmd, options) {
  if (options.dryRun === options.yes) usageError(cmd, options.yes ? '--dry-run and --yes exclude each other' : 'a deletion cannot be undone: add --dry-run to see what would be removed, or --yes to remove it')
  const since = instant(cmd, 'since', options.since)
  const until = instant(cmd, 'until', options.until)
  if (since && since > until) usageError(cmd, '--since is after --until')
  const config = configOf(io)
  return withStorage(config, async (storage) => {
    const range = { since, until, store: await storeNumber(storage, options.store) }
    const shown = { since: since && since.toISOString(), until: until.toISOString() }
    if (options.dryRun) {
      const { wouldRemove } = await previewDeletion(storage, range)
      io.stdout.write(`would remove ${wouldRemove.statements} statements (${wouldRemove.outsideTheRange} of them stored outside the range: voiding statements of voided ones in it, or targets of voiding ones), with the attachments and forwarding entries only those statements have; nothing was removed (run again with --yes)\n`)
      return 0
    }
    const { removed } = await deleteStatements(storage, range)
    auditLogger(config).info({ audit: 'statements-deleted', range: shown, removed }, 'statements deleted by stored time')
    io.stdout.write(`removed ${removed.statements} statements, ${removed.attachments} attachments, ${removed.forwardingEntries} forwarding entries\n`)
    return 0
  })
}

function register (program, io) {
  return program.command('delete-statements')
    .summary('remove a store\'s statements stored in a time range')
    .description('Remove the statements of a store stored after --since and at or before --until (voided ones included), with the voiding statements of voided ones and the targets of voiding ones wherever they were stored, attachments no other statement uses and forwarding entries. Cannot be undone.')
    .requiredOption('--until <iso>', 'stored at or before this instant')
    .option('--since <iso>', 'stored after this instant (none: from the first)')
    .option('--store <id>', 'in this store (lrs store list); the default store when omitted')
    .option('--dry-run', 'count what would be removed; remove nothing')
    .option('--yes', 'remove them (required: a deletion cannot be undone)')
    .addHelpText('after', `
Examples:
  $ lrs delete-statements --until 2024-01-01T00:00:00Z --store acme --dry-run
  $ lrs delete-statements --since 2023-01-01T00:00:00Z --until 2024-01-01T00:00:00Z --store acme --yes`)
    .action(action(function (options) { return deleteCommand(io, this, options) }))
}

module.exports = { register }
