'use strict'

// lrs config: the configuration this environment gives the LRS (and every
// lrs command), as a table with secrets masked, then whether it is valid:
// one line per problem and exit code 1, so a deployment can check it
// before starting anything.

const { describeSettings, configProblems, loadConfig } = require('../config')
const { action } = require('./common')
const { formatTable } = require('./table')

function configCommand (io, options) {
  const settings = describeSettings(io.env)
  const problems = configProblems(io.env)
  if (options.json) io.stdout.write(JSON.stringify({ settings, problems }, null, 2) + '\n')
  else io.stdout.write(formatTable(['VARIABLE', 'SOURCE', 'VALUE'], settings.map((s) => [s.env, s.source, s.value])))
  if (problems.length) {
    for (const problem of problems) io.stderr.write(`lrs config: ${problem}\n`)
    return 1
  }
  const config = loadConfig(io.env)
  const store = config.storage === 'mongodb' ? `mongodb, database ${config.mongodbDb}` : `sqlite, ${config.dataDir}`
  if (!options.json) io.stdout.write(`\nthe configuration is valid (storage: ${store})\n`)
  return 0
}

function register (program, io) {
  return program.command('config')
    .summary('print and validate the configuration')
    .description('Print the effective configuration (every LRS_* setting, from the environment or its default; secrets masked) and check it: one line per problem and exit code 1 if any.')
    .option('--json', 'as JSON: { settings, problems }')
    .addHelpText('after', `
Examples:
  $ lrs config
  $ PORT=80 LRS_LOG_LEVEL=warn lrs config
  $ lrs config --json`)
    .action(action((options) => configCommand(io, options)))
}

module.exports = { register }
