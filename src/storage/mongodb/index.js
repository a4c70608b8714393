'use strict'

// The `mongodb` engine: MongoDB 6+ (standalone, replica set or sharded
// cluster), or FerretDB as its stand-in in tests.

const { connect } = require('./connection')
const { idLocks } = require('./locks')
const { translateError } = require('./errors')
const { statementsRepository } = require('./statements')
const { documentsRepository } = require('./documents')
const { attachmentsRepository } = require('./attachments')
const { credentialsRepository } = require('./credentials')
const { outboxRepository } = require('./outbox')
const { settingsRepository } = require('./settings')

function openMongoStorage (config, logger, { monitorCommands = false, hooks = {} } = {}) {
  const connection = connect(config, logger, { monitorCommands })
  const { db } = connection
  const locks = idLocks(db)
  const isFerret = () => connection.engine === 'ferretdb'
  const options = { queryTimeoutMs: config.queryTimeoutMs, isFerret, locks, hooks }
  const outbox = outboxRepository(db, options)
  const repositories = {
    statements: statementsRepository(db, { ...options, outbox }),
    documents: documentsRepository(db, options),
    attachments: attachmentsRepository(db, options),
    credentials: credentialsRepository(db, options),
    outbox,
    settings: settingsRepository(db, options)
  }
  return {
    kind: 'mongodb',
    get engine () { return connection.engine },
    ready: connection.ready,
    ping: () => translating(connection.ping)(),
    close: connection.close,
    ...Object.fromEntries(Object.entries(repositories).map(([name, repo]) => [name, translateAll(repo)])),
    // For tests that look underneath (command monitoring, raw inserts).
    internals: { client: connection.client, db }
  }
}

function translating (fn) {
  return async (...args) => {
    try {
      return await fn(...args)
    } catch (err) {
      throw translateError(err)
    }
  }
}

function translateAll (repo) {
  return Object.fromEntries(Object.entries(repo).map(([name, fn]) => [name, translating(fn)]))
}

module.exports = { openMongoStorage }
