'use strict'

// Fills a store with the generator's statements through the engine's own
// write path (storage.statements.storeBatch, in this process: no HTTP, no
// validation), several batches in flight as several workers' requests
// would be. Scenarios use it to start from a populated store.

const crypto = require('node:crypto')
const { scormStatement } = require('./statement-generator')
const { toRecord } = require('../src/resources/statements/statement-record')
const { loadConfig } = require('../src/config')
const { createLogger } = require('../src/logger')
const { openStorage } = require('../src/storage')
const { storageRecord } = require('../src/stores/store-keys')

const AUTHORITY = { objectType: 'Agent', name: 'bench', account: { homePage: 'http://localhost/lrs', name: 'bench' } }
const BATCH = 500
const IN_FLIGHT = 4

async function openStoreStorage (store) {
  const storage = openStorage(loadConfig({ ...store.lrsEnv, LRS_LOG_LEVEL: 'warn' }), createLogger({ logLevel: 'warn' }))
  await storage.ready
  return storage
}

// Statements from..to of the generator; returns statements/s. `store`:
// the number of the store they go to (src/stores/; 0, the default one);
// `statementOf(i)`: statement i (the generator's by default);
// `storedAtTimestamp`: each stored at its timestamp (the way a store that
// took its statements as they happened has them; as an import keeps them),
// in order, not now.
async function fillStore (storage, from, to, { onProgress = () => {}, store = 0, statementOf = scormStatement, storedAtTimestamp = false } = {}) {
  const started = process.hrtime.bigint()
  const pending = []
  for (let i = from; i < to;) {
    const records = []
    for (const end = Math.min(to, i + BATCH); i < end; i++) {
      const statement = { ...statementOf(i), id: crypto.randomUUID() }
      const record = storageRecord(toRecord(statement, { authority: AUTHORITY, xapiVersion: '1.0.3' }), store)
      if (storedAtTimestamp) record.stored = new Date(statement.timestamp)
      records.push(record)
    }
    pending.push(storedAtTimestamp ? storage.statements.insertStored(records) : storage.statements.storeBatch([records], { stored: new Date(), sameStatement: () => true }))
    if (pending.length >= IN_FLIGHT) await pending.shift()
    if (i % 50000 === 0) onProgress(i)
  }
  await Promise.all(pending)
  return (to - from) / (Number(process.hrtime.bigint() - started) / 1e9)
}

// A store of `count` statements, its storage closed again.
async function prefill (store, count, options) {
  if (!count) return null
  const storage = await openStoreStorage(store)
  try {
    return await fillStore(storage, 0, count, options)
  } finally {
    await storage.close()
  }
}

module.exports = { fillStore, openStoreStorage, prefill }
