'use strict'

// The `lrs` command line: one program, a subcommand per file of this folder.
// commander parses the arguments (a well-kept parser: help and examples per
// command, unknown options refused, one convention for every command).
//
// Exit codes: 0 done; 1 the command ran and failed or found a problem
// (the reason in one line on stderr, no stack trace); 2 the command line
// was wrong (unknown option, missing argument: with a hint to --help).

const { Command, CommanderError } = require('commander')
const { version } = require('../../package.json')
const credential = require('./credential')
const exportCommand = require('./export')
const importCommand = require('./import')
const eraseAgent = require('./erase-agent')
const deleteStatements = require('./delete-statements')
const config = require('./config')
const check = require('./check')
const store = require('./store')
const forwarder = require('./forwarder')
const secrets = require('./secrets')
const migrateCommand = require('./migrate')

const COMMANDS = [credential, store, forwarder, secrets, exportCommand, importCommand, eraseAgent, deleteStatements, config, check, migrateCommand]
const USAGE = 2

function buildProgram (io) {
  const program = new Command('lrs')
    .description('Command line of the xAPI LRS: credentials, stores, forwarders, export and import, agent erasure, deleting statements by time, configuration and store checks.\nEvery command works on the store the configuration names (LRS_DATA_DIR, or MONGODB_URI and MONGODB_DB).')
    .version(version, '-V, --version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .addHelpText('after', '\nExamples:\n  $ lrs credential create lms --scopes statements/write,statements/read < secret.txt\n  $ lrs forwarder create --store acme < warehouse.json\n  $ lrs check\n  $ lrs export --help')
  for (const command of COMMANDS) command.register(program, io)
  hintOnError(program)
  return program
}

// Every command, subcommands included, ends a usage error with where its
// help is.
function hintOnError (cmd) {
  cmd.showHelpAfterError(`(run "${fullName(cmd)} --help" for usage and examples)`)
  for (const sub of cmd.commands) hintOnError(sub)
}

function fullName (cmd) {
  const names = []
  for (let c = cmd; c; c = c.parent) names.unshift(c.name())
  return names.join(' ')
}

// The process's exit code; writes what went wrong on io.stderr.
async function main (argv, io) {
  const program = buildProgram(io)
  try {
    const result = await program.parseAsync(argv, { from: 'user' })
    return result.exitCode ?? 0
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return 0
      return err.exitCode === 0 ? 0 : USAGE
    }
    const code = err.code && /^LRS_ERR_/.test(err.code) ? ` (${err.code})` : ''
    io.stderr.write(`lrs: ${err.message}${code}\n`)
    return 1
  }
}

module.exports = { main, buildProgram }
