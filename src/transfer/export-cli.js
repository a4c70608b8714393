'use strict'

// npm run export [-- --since ISO] [--until ISO] [--out FILE]
// Writes the configured store's statements as NDJSON (stdout by default).

const fs = require('node:fs')
const { parseArgs } = require('node:util')
const { once } = require('node:events')
const { loadConfig } = require('../config')
const { createToolLogger } = require('../logger')
const { openStorage } = require('../storage')
const { exportStatements } = require('./export-statements')

function dateOption (value, name) {
  if (value === undefined) return null
  const ms = Date.parse(value)
  if (Number.isNaN(ms)) throw new Error(`--${name} must be an ISO 8601 timestamp`)
  return new Date(ms)
}

async function main (argv) {
  const { values } = parseArgs({ args: argv, options: { since: { type: 'string' }, until: { type: 'string' }, out: { type: 'string' } } })
  const range = { since: dateOption(values.since, 'since'), until: dateOption(values.until, 'until') }
  const config = loadConfig()
  const storage = openStorage(config, createToolLogger({ ...config, logLevel: 'error' }))
  const out = values.out ? fs.createWriteStream(values.out) : process.stdout
  let lines = 0
  try {
    await storage.ready
    for await (const chunk of exportStatements(storage.statements, range)) {
      lines += chunk.split('\n').length - 1
      if (!out.write(chunk)) await once(out, 'drain')
    }
  } finally {
    await storage.close()
  }
  if (values.out) await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())))
  process.stderr.write(`exported ${lines} statements\n`)
  return 0
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code }, (err) => {
  process.stderr.write(`export failed: ${err.message}\n`)
  process.exitCode = 1
})
