'use strict'

// lrs erase-agent: a learner's right to be forgotten from a shell, as
// DELETE /admin/agents does it (src/admin/erase-agent.js). It cannot be
// undone, so the command line says which: --dry-run counts what would go,
// --yes erases. The audit line names the agent by a digest only.

const { action, usageError, configOf, withStorage, storeNumber } = require('./common')
const { createStatementValidator } = require('../validation/statement-validator')
const { eraseAgent, previewErasure } = require('../admin/erase-agent')
const { auditLogger } = require('./audit')

function describe (counts) {
  return Object.entries(counts).map(([what, n]) => `${n} ${what.replace(/[A-Z]/g, (c) => ' ' + c.toLowerCase())}`).join(', ')
}

async function eraseCommand (io, cmd, agentJson, options) {
  if (options.dryRun === options.yes) usageError(cmd, options.yes ? '--dry-run and --yes exclude each other' : 'erasure cannot be undone: add --dry-run to see what would be removed, or --yes to remove it')
  const config = configOf(io)
  let agent
  try {
    agent = createStatementValidator(config).parseActorParam(agentJson, '2.0.0')
  } catch (err) {
    usageError(cmd, `${err.message} (e.g. '{"mbox":"mailto:learner@example.com"}')`)
  }
  return withStorage(config, async (storage) => {
    const store = await storeNumber(storage, options.store)
    if (options.dryRun) {
      const { wouldRemove } = await previewErasure(storage, agent, { store })
      io.stdout.write(`would remove ${describe(wouldRemove)}, with the attachments and forwarding entries only those statements have; nothing was removed (run again with --yes)\n`)
      return 0
    }
    const result = await eraseAgent(storage, agent, { store })
    auditLogger(config).info({ audit: 'agent-erased', agentDigest: result.agentDigest, removed: result.removed }, 'agent erased')
    io.stdout.write(`removed ${describe(result.removed)}\n`)
    return 0
  })
}

function register (program, io) {
  return program.command('erase-agent')
    .summary('remove everything about one agent (right to be forgotten)')
    .description('Remove every statement an agent appears in (as actor, object, group member, instructor, team, context agent, in sub-statements), its State and Agent Profile documents, attachments no other statement uses and pending forwarding entries. Statements where it is only the authority stay. Cannot be undone.')
    .argument('<agent>', 'the agent as JSON (an Agent or identified Group: mbox, mbox_sha1sum, openid or account)')
    .option('--store <id>', 'in this store (lrs store list); the default store when omitted')
    .option('--dry-run', 'count what would be removed; remove nothing')
    .option('--yes', 'remove it (required: erasure cannot be undone)')
    .addHelpText('after', `
Examples:
  $ lrs erase-agent '{"mbox":"mailto:learner@example.com"}' --dry-run
  $ lrs erase-agent '{"mbox":"mailto:learner@example.com"}' --yes
  $ lrs erase-agent '{"account":{"homePage":"https://lms.example","name":"1234"}}' --yes`)
    .action(action(function (agent, options) { return eraseCommand(io, this, agent, options) }))
}

module.exports = { register }
