'use strict'

// For test/storage/purge-crash.test.js, on the SQLite store of
// LRS_DATA_DIR, with index merges after a few statements at every level
// (so that the purged store's rows are in every level):
//   node purging-writer.js fill GONE KEPT   stores GONE statements in a
//       store `gone` and KEPT in a store `kept`, deletes `gone` (purging
//       none of it), and writes the ids of `kept`'s statements, one a line
//   node purging-writer.js run    opens the store, whose writer purges the
//       deleted store; writes "open" once it is, and "purged" once the
//       purge has ended. The test kills it with SIGKILL on the way.
//   node purging-writer.js age OLD NEW   stores OLD statements stored ten
//       days ago in a store `aging` kept one day (every 30th voided by a
//       statement stored now, which goes with it) and NEW stored now;
//       writes the ids of the NEW, one a line
//   node purging-writer.js retain   runs the stores' retention every 20 ms
//       (src/stores/retention.js); writes "open", then "retained" once
//       only the NEW are left

const crypto = require('node:crypto')
const { loadConfig } = require('../../src/config')
const { createLogger } = require('../../src/logger')
const { openStorage } = require('../../src/storage')
const { toRecord } = require('../../src/resources/statements/statement-record')
const { storageRecord } = require('../../src/stores/store-keys')
const { startRetention } = require('../../src/stores/retention')

const AUTHORITY = { objectType: 'Agent', name: 'purge-crash', mbox: 'mailto:purge-crash@example.com' }
const HOOKS = { mergeStatements: 16, middleStatements: 64, levelRatio: 2, purgeGraceMs: 0 }

function statementAt (n) {
  return {
    id: crypto.randomUUID(),
    actor: { objectType: 'Agent', mbox: `mailto:learner-${n % 97}@example.com` },
    verb: { id: `http://example.com/verbs/v${n % 3}` },
    object: { objectType: 'Activity', id: `http://example.com/activities/a${n % 11}` },
    context: { registration: `00000000-0000-4000-8000-${String(n % 50).padStart(12, '0')}` }
  }
}

async function fill (storage, gone, kept) {
  for (const id of ['gone', 'kept']) await storage.stores.create({ id, name: id })
  const numbers = new Map((await storage.stores.all()).map((s) => [s.id, s.number]))
  const keptIds = []
  for (let n = 0; n < gone + kept; n += 8) {
    const store = n < gone ? 'gone' : 'kept'
    const records = Array.from({ length: 8 }, (_, k) => toRecord(statementAt(n + k), { authority: AUTHORITY, xapiVersion: '1.0.3' }))
    if (store === 'kept') keptIds.push(...records.map((r) => r.id))
    await storage.statements.storeBatch([records.map((r) => storageRecord(r, numbers.get(store)))], { stored: new Date(), sameStatement: () => true })
  }
  if (!await storage.stores.remove({ id: 'gone' })) throw new Error('the store was not deleted')
  process.stdout.write(keptIds.join('\n') + '\n')
}

const DAY_MS = 86400000

async function age (storage, old, fresh) {
  await storage.stores.create({ id: 'aging', name: 'aging' })
  await storage.stores.setRetention({ id: 'aging', days: 1 })
  const number = (await storage.stores.all()).find((s) => s.id === 'aging').number
  const record = (statement, stored) => Object.assign(toRecord(statement, { authority: AUTHORITY, xapiVersion: '1.0.3' }), { stored })
  const longAgo = new Date(Date.now() - 10 * DAY_MS)
  const olds = Array.from({ length: old }, (_, n) => record(statementAt(n), longAgo))
  for (let i = 0; i < olds.length; i += 500) await storage.statements.insertStored(olds.slice(i, i + 500).map((r) => storageRecord({ ...r }, number))) // (qualified in place: olds keep the ids voided below)
  const voiding = olds.filter((_, n) => n % 30 === 0).map((r) => ({ ...statementAt(0), verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id: r.id } }))
  const news = Array.from({ length: fresh }, (_, n) => statementAt(old + n))
  for (const list of [voiding, news]) {
    for (let i = 0; i < list.length; i += 200) {
      const records = list.slice(i, i + 200).map((s) => storageRecord(toRecord(s, { authority: AUTHORITY, xapiVersion: '1.0.3' }), number))
      await storage.statements.storeBatch([records], { stored: new Date(), sameStatement: () => true })
    }
  }
  process.stdout.write(news.map((s) => s.id).join('\n') + '\n')
}

async function main () {
  const config = loadConfig({ LRS_DATA_DIR: process.env.LRS_DATA_DIR, MONGODB_URI: '', LRS_LOG_LEVEL: 'silent' })
  const storage = openStorage(config, createLogger({ logLevel: 'silent' }), { hooks: { ...HOOKS, purge: process.argv[2] !== 'fill' } })
  await storage.ready
  if (process.argv[2] === 'fill' || process.argv[2] === 'age') {
    await (process.argv[2] === 'fill' ? fill : age)(storage, Number(process.argv[3]), Number(process.argv[4]))
    await storage.close()
    return
  }
  if (process.argv[2] === 'retain') {
    const number = (await storage.stores.all()).find((s) => s.id === 'aging').number
    const left = Number(process.argv[3])
    startRetention({ storage, logger: createLogger({ logLevel: 'silent' }), intervalMs: 20 })
    process.stdout.write('open\n')
    while (await storage.statements.count({ store: number }) > left) await new Promise((resolve) => setTimeout(resolve, 20))
    process.stdout.write('retained\n')
    process.exit(0)
  }
  process.stdout.write('open\n')
  while ((await storage.stores.deleting()).length) await new Promise((resolve) => setTimeout(resolve, 20))
  process.stdout.write('purged\n')
  await storage.close()
}

main().catch((err) => {
  process.stderr.write(String(err.stack || err) + '\n')
  process.exit(1)
})
