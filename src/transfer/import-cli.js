'use strict'

// npm run import -- [--restart] [--rejects FILE] FILE...
// Loads statement files (NDJSON or JSON arrays) into the configured store,
// keeping ids, `stored` and `authority` (see import-statements.js). On a
// terminal it shows progress with rate and ETA; at the end, a summary of
// the rejected statements with their reasons.

const fs = require('node:fs')
const { parseArgs } = require('node:util')
const { loadConfig } = require('../config')
const { createToolLogger } = require('../logger')
const { openStorage } = require('../storage')
const { createStatementValidator } = require('../validation/statement-validator')
const { importFiles } = require('./import-statements')
const { fileCheckpoints } = require('./checkpoints')
const { progressLine } = require('./progress-line')

const SHOWN_REJECTS = 10

async function main (argv) {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { restart: { type: 'boolean' }, rejects: { type: 'string' } } })
  if (!positionals.length) {
    process.stderr.write('usage: npm run import -- [--restart] [--rejects FILE] FILE...\n')
    return 2
  }
  const sizes = new Map()
  for (const file of positionals) sizes.set(file, (await fs.promises.stat(file)).size)
  const config = loadConfig()
  const storage = openStorage(config, createToolLogger({ ...config, logLevel: 'error' }))
  const rejectsOut = values.rejects ? fs.createWriteStream(values.rejects) : null
  const shown = []
  const reasons = new Map()
  let seconds
  let show
  let summary
  try {
    const validator = createStatementValidator(config)
    await storage.ready
    // The rate counts the loading, not opening the store and compiling the
    // schemas (as the bulk-load bench's raw insert baseline does).
    const started = Date.now()
    show = process.stderr.isTTY ? progressLine(sizes, { write: (text) => process.stderr.write(text) }) : () => {}
    summary = await importFiles(positionals, {
      storage,
      validator,
      importAuthority: { objectType: 'Agent', name: 'import', account: { homePage: config.authorityHomePage, name: 'import' } },
      limits: { maxDepth: config.maxJsonDepth, maxStringLength: config.maxStringLength, maxStatementBytes: config.maxStatementBytes },
      checkpoints: fileCheckpoints(config.dataDir, { restart: values.restart }),
      onProgress: (p) => show(p),
      onReject: (r) => {
        const reason = r.reason.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
        reasons.set(reason, (reasons.get(reason) || 0) + 1)
        if (shown.length < SHOWN_REJECTS) shown.push(r)
        if (rejectsOut) rejectsOut.write(JSON.stringify(r) + '\n')
      }
    })
    seconds = (Date.now() - started) / 1000
  } finally {
    await storage.close()
    if (rejectsOut) rejectsOut.end()
  }
  let total = 0
  for (const s of summary) {
    show({ ...s, offset: sizes.get(s.file) }, true)
    total += s.stored + s.existing
    process.stdout.write(`${s.file} (${s.format}${s.resumedAt ? `, resumed at byte ${s.resumedAt}` : ''}): ${s.stored} stored, ${s.existing} already stored, ${s.rejected} rejected\n`)
  }
  process.stdout.write(`${total} statements in ${seconds.toFixed(2)} s: ${Math.round(total / seconds)} statements/s\n`)
  if (reasons.size) {
    process.stdout.write('rejected, by reason:\n')
    for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) process.stdout.write(`  ${n}  ${reason}\n`)
    for (const r of shown) process.stdout.write(`  e.g. ${r.file} statement #${r.index + 1} (byte ${r.offset}): ${r.reason}\n`)
  }
  return summary.some((s) => s.rejected) ? 1 : 0
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code }, (err) => {
  process.stderr.write(`\nimport failed: ${err.message}\n`)
  process.exitCode = 1
})
