'use strict'

// The `mongodb` engine: MongoDB 6+ (standalone, replica set or sharded
// cluster), or FerretDB as its stand-in in tests.

const { connect } = require('./connection')
const { idLocks } = require('./locks')
const { translateError } = require('./errors')
const { translateErrors } = require('../translate-errors')
const { statementsRepository } = require('./statements')
const { documentsRepository } = require('./documents')
const { attachmentsRepository } = require('./attachments')
const { credentialsRepository } = require('./credentials')
const { outboxRepository } = require('./outbox')
const { settingsRepository } = require('./settings')
const { consoleSessionsRepository } = require('./console-sessions')
const { storesRepository } = require('./stores')
const { forwardersRepository } = require('./forwarders')
const { savedReportsRepository } = require('./saved-reports')
const { reportCountsRepository, backfillReportFields } = require('./report-counts')
const { startStorePurge } = require('./store-purge')

function openMongoStorage (config, logger, { monitorCommands = false, hooks = {} } = {}) {
  const connection = connect(config, logger, { monitorCommands })
  const { db } = connection
  const locks = idLocks(db, { maxWaitMs: hooks.lockWaitMs })
  const isFerret = () => connection.engine === 'ferretdb'
  const options = { queryTimeoutMs: config.queryTimeoutMs, isFerret, locks, hooks }
  const outbox = outboxRepository(db, options)
  const attachments = attachmentsRepository(db, options)
  const repositories = {
    statements: statementsRepository(db, { ...options, outbox, attachments }),
    documents: documentsRepository(db, options),
    attachments,
    credentials: credentialsRepository(db, options),
    outbox,
    settings: settingsRepository(db, options),
    consoleSessions: consoleSessionsRepository(db, options),
    stores: storesRepository(db, options),
    forwarders: forwardersRepository(db, options),
    savedReports: savedReportsRepository(db, options),
    reportCounts: reportCountsRepository(db, options)
  }
  // statements stored before they had report fields get them, in the background
  connection.ready.then(() => backfillReportFields(db, { logger })).catch((err) => logger.warn({ err }, 'could not give older statements their report fields; reports read the statements until a start that can'))
  // When the LRS first made this database's data, recorded once it answers
  // (stores.js) and before the storage says it is ready: done after, its
  // reads ran beside the first requests (the write path's test that counts
  // read commands saw them).
  const ready = connection.ready.then(() => repositories.stores.created()).then(() => {}, (err) => logger.warn({ err }, 'could not record when the database was created; the first store listing tries again'))
  // `hooks.purgeGraceMs`: tests only, a shorter wait before a deleted store is marked purged
  const purge = startStorePurge(db, { ready: connection.ready, logger, graceMs: hooks.purgeGraceMs })
  return {
    kind: 'mongodb',
    get engine () { return connection.engine },
    ready,
    ping: translateErrors({ ping: connection.ping }, translateError).ping,
    async close () {
      await purge.stop()
      await connection.close()
    },
    writerRestarting: () => false, // the driver's own retries cover a failover
    ...Object.fromEntries(Object.entries(repositories).map(([name, repo]) => [name, translateErrors(repo, translateError)])),
    // For tests that look underneath (command monitoring, raw inserts).
    internals: { client: connection.client, db }
  }
}

module.exports = { openMongoStorage }
