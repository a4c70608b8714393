'use strict'

// A process that stores statements without pause on the SQLite store of
// LRS_DATA_DIR through the engine's own write path, with index merges
// after a few statements at every level (so that a merge round is under
// way almost all the time), and writes the id of each statement once its
// write is acknowledged, one a line. For test/storage/merge-crash.test.js,
// which kills it with SIGKILL.

const crypto = require('node:crypto')
const { loadConfig } = require('../../src/config')
const { createLogger } = require('../../src/logger')
const { openStorage } = require('../../src/storage')
const { toRecord } = require('../../src/resources/statements/statement-record')

const AUTHORITY = { objectType: 'Agent', name: 'merge-crash', mbox: 'mailto:merge-crash@example.com' }

function statementAt (n) {
  return {
    id: crypto.randomUUID(),
    actor: { objectType: 'Agent', mbox: `mailto:learner-${n % 7}@example.com` },
    verb: { id: `http://example.com/verbs/v${n % 3}` },
    object: { objectType: 'Activity', id: `http://example.com/activities/a${n % 11}` },
    context: { registration: `00000000-0000-4000-8000-00000000000${n % 5}` }
  }
}

async function main () {
  const config = loadConfig({ LRS_DATA_DIR: process.env.LRS_DATA_DIR, MONGODB_URI: '', LRS_LOG_LEVEL: 'silent' })
  const storage = openStorage(config, createLogger({ logLevel: 'silent' }), { hooks: { mergeStatements: 16, middleStatements: 64, levelRatio: 2 } })
  await storage.ready
  const inFlight = new Set()
  for (let n = 0; ; n++) {
    const records = Array.from({ length: 8 }, (_, k) => toRecord(statementAt(n * 8 + k), { authority: AUTHORITY, xapiVersion: '1.0.3' }))
    const write = storage.statements.storeBatch([records], { stored: new Date(), sameStatement: () => true })
      .then(() => process.stdout.write(records.map((r) => r.id).join('\n') + '\n'))
    inFlight.add(write)
    write.finally(() => inFlight.delete(write))
    if (inFlight.size >= 4) await Promise.race(inFlight)
  }
}

main().catch((err) => {
  process.stderr.write(String(err.stack || err) + '\n')
  process.exit(1)
})
