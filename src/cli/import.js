'use strict'

// lrs import: the trusted bulk loader (src/transfer/import-statements.js).
// Statement files (NDJSON or JSON arrays) into the store, keeping ids,
// `stored` and `authority`. On a terminal it shows progress with rate and
// ETA; at the end, a summary of the rejected statements with their
// reasons. Exit code 1 when any statement was rejected.

const fs = require('node:fs')
const { action, configOf, withStorage, storeNumber } = require('./common')
const { createStatementValidator } = require('../validation/statement-validator')
const { importFiles } = require('../transfer/import-statements')
const { fileCheckpoints } = require('../transfer/checkpoints')
const { progressLine } = require('../transfer/progress-line')

const SHOWN_REJECTS = 10

async function importCommand (io, files, options) {
  const sizes = new Map()
  for (const file of files) sizes.set(file, (await fs.promises.stat(file)).size)
  const config = configOf(io)
  const rejectsOut = options.rejects ? fs.createWriteStream(options.rejects) : null
  const shown = []
  const reasons = new Map()
  let seconds
  let show
  let summary
  try {
    await withStorage(config, async (storage) => {
      const validator = createStatementValidator(config)
      // The rate counts the loading, not opening the store and compiling the
      // schemas (as the bulk-load bench's raw insert baseline does).
      const started = Date.now()
      show = io.stderr.isTTY ? progressLine(sizes, { write: (text) => io.stderr.write(text) }) : () => {}
      const store = await storeNumber(storage, options.store)
      summary = await importFiles(files, {
        storage,
        store,
        validator,
        importAuthority: { objectType: 'Agent', name: 'import', account: { homePage: config.authorityHomePage, name: 'import' } },
        limits: { maxDepth: config.maxJsonDepth, maxStringLength: config.maxStringLength, maxStatementBytes: config.maxStatementBytes },
        checkpoints: fileCheckpoints(config.dataDir, { restart: options.restart, store }),
        onProgress: (p) => show(p),
        onReject: (r) => {
          const reason = r.reason.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
          reasons.set(reason, (reasons.get(reason) || 0) + 1)
          if (shown.length < SHOWN_REJECTS) shown.push(r)
          if (rejectsOut) rejectsOut.write(JSON.stringify(r) + '\n')
        }
      })
      seconds = (Date.now() - started) / 1000
    })
  } finally {
    if (rejectsOut) rejectsOut.end()
  }
  let total = 0
  for (const s of summary) {
    show({ ...s, offset: sizes.get(s.file) }, true)
    total += s.stored + s.existing
    io.stdout.write(`${s.file} (${s.format}${s.resumedAt ? `, resumed at byte ${s.resumedAt}` : ''}): ${s.stored} stored, ${s.existing} already stored, ${s.rejected} rejected\n`)
  }
  io.stdout.write(`${total} statements in ${seconds.toFixed(2)} s: ${Math.round(total / seconds)} statements/s\n`)
  if (reasons.size) {
    io.stdout.write('rejected, by reason:\n')
    for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) io.stdout.write(`  ${n}  ${reason}\n`)
    for (const r of shown) io.stdout.write(`  e.g. ${r.file} statement #${r.index + 1} (byte ${r.offset}): ${r.reason}\n`)
  }
  return summary.some((s) => s.rejected) ? 1 : 0
}

function register (program, io) {
  return program.command('import')
    .summary('load statement files into the store')
    .description('Load statement files (NDJSON, as "lrs export" writes, or JSON arrays) into the store, keeping their ids, stored and authority. Statements already stored are skipped, so a second run changes nothing; an interrupted run resumes where it stopped. Exit code 1 when a statement was rejected.')
    .argument('<files...>', 'NDJSON or JSON array files')
    .option('--store <id>', 'into this store (lrs store list); the default store when omitted')
    .option('--restart', 'start each file from its beginning, not from where an earlier run stopped')
    .option('--rejects <file>', 'write each rejected statement, with its reason, to this NDJSON file')
    .addHelpText('after', `
Examples:
  $ lrs import all.ndjson
  $ lrs import --rejects rejected.ndjson january.ndjson february.json
  $ MONGODB_URI=mongodb://db:27017 lrs import all.ndjson   # SQLite to MongoDB, with "lrs export" first
  (npm run import -- FILE runs node with --max-semi-space-size=64: faster on large files)`)
    .action(action((files, options) => importCommand(io, files, options)))
}

module.exports = { register }
