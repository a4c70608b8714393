'use strict'

// lrs export: the store's statements as NDJSON, in stored order, as
// `lrs import` reads them back (src/transfer/export-statements.js).

const fs = require('node:fs')
const { once } = require('node:events')
const { InvalidArgumentError } = require('commander')
const { action, configOf, withStorage, storeNumber } = require('./common')
const { exportStatements } = require('../transfer/export-statements')

function timestamp (value) {
  const ms = Date.parse(value)
  if (Number.isNaN(ms)) throw new InvalidArgumentError('not an ISO 8601 timestamp (e.g. 2026-01-01T00:00:00Z)')
  return new Date(ms)
}

async function exportCommand (io, options) {
  const range = { since: options.since || null, until: options.until || null }
  const config = configOf(io)
  const out = options.out ? fs.createWriteStream(options.out) : io.stdout
  let lines = 0
  await withStorage(config, async (storage) => {
    const store = await storeNumber(storage, options.store)
    for await (const chunk of exportStatements(storage.statements, { ...range, store })) {
      lines += chunk.split('\n').length - 1
      if (!out.write(chunk)) await once(out, 'drain')
    }
  })
  if (options.out) await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())))
  io.stderr.write(`exported ${lines} statements\n`)
  return 0
}

function register (program, io) {
  return program.command('export')
    .summary('write the statements as NDJSON')
    .description('Write the statements of the store as NDJSON (one statement a line, in stored order, with ids, stored and authority), to stdout or a file. "lrs import" reads it back.')
    .option('--since <iso>', 'only statements stored after this time', timestamp)
    .option('--until <iso>', 'only statements stored at or before this time', timestamp)
    .option('--store <id>', 'the statements of this store (lrs store list); the default store\'s when omitted')
    .option('--out <file>', 'write to this file instead of stdout')
    .addHelpText('after', `
Examples:
  $ lrs export --out all.ndjson
  $ lrs export --since 2026-01-01T00:00:00Z --until 2026-02-01T00:00:00Z > january.ndjson
  $ MONGODB_URI=mongodb://db:27017 lrs export | gzip > lrs.ndjson.gz`)
    .action(action((options) => exportCommand(io, options)))
}

module.exports = { register }
