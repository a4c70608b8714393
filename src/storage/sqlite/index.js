'use strict'

// The `sqlite` engine, the default: one database file under LRS_DATA_DIR,
// shared by every PM2 worker (WAL). Nothing to install beyond npm install
// (better-sqlite3 is built from the npm registry). Writes go to the host's
// one writer process under PM2 (writer-process.js, LRS_SQLITE_WRITER), or
// to a thread of this process's own (writer-thread.js); reads run here on
// a read-only connection: every query is an index walk that stops at its
// limit, so it holds the event loop for well under a millisecond. See
// open.js for what an acknowledged write guarantees.

const { openDatabase, databaseFile, storeProblem } = require('./open')
const { makeSchema } = require('./schema')
const { startWriter } = require('./writer')
const { connectWriter } = require('./writer-client')
const { writerSocketPaths } = require('./writer-socket')
const { translateError } = require('./errors')
const { translateErrors } = require('../translate-errors')
const { watchDiskFull } = require('./disk-full')
const { errors } = require('../../errors')
const { statementsRepository } = require('./statements')
const { documentsRepository } = require('./documents')
const { attachmentsRepository } = require('./attachments')
const { credentialsRepository } = require('./credentials')
const { outboxRepository } = require('./outbox')
const { settingsRepository } = require('./settings')
const { consoleSessionsRepository } = require('./console-sessions')
const { forwardersRepository } = require('./forwarders')
const { savedReportsRepository } = require('./saved-reports')
const { reportCountsRepository } = require('./report-rollup-reads')
const { storesRepository } = require('./stores')

// `hooks.walLimitBytes`, `hooks.mergeStatements`, `hooks.middleStatements`,
// `hooks.levelRatio`, `hooks.maxPageCount`, `hooks.resumeFreeBytes`, `hooks.merges`, `hooks.purgeGraceMs`, `hooks.purge`, `hooks.fewPostings`: tests only, a smaller WAL
// bound, index merges after fewer statements (writer-loop.js), a file
// that is full at that many pages (disk-full.js), no merge thread (false),
// a shorter wait before a deleted store is marked purged, no purge (false)
// (writer-loop.js), fewer postings for a filter to count as selective
// (statements.js, findReferencingIds).
function openSqliteStorage (config, logger, { hooks = {} } = {}) {
  const db = openDatabase(config.dataDir)
  try {
    makeSchema(db, logger)
  } catch (err) {
    db.close()
    throw storeProblem(databaseFile(config.dataDir), err)
  }
  db.pragma('query_only = ON')
  const writer = config.sqliteWriter === 'process'
    ? connectWriter(writerSocketPaths(config.dataDir, config.writerSocket), logger, { waitMs: config.writerWaitMs })
    : startWriter(config.dataDir, logger, {
      walLimitBytes: hooks.walLimitBytes,
      mergeStatements: hooks.mergeStatements,
      middleStatements: hooks.middleStatements,
      levelRatio: hooks.levelRatio,
      maxPageCount: hooks.maxPageCount,
      merges: hooks.merges !== false,
      purgeGraceMs: hooks.purgeGraceMs,
      purge: hooks.purge !== false,
      oneWriter: config.sqliteWriter === 'auto' // a process on its own; `thread`: one in every worker
    })
  const diskFull = watchDiskFull(writer, { dataDir: config.dataDir, logger, resumeFreeBytes: hooks.resumeFreeBytes })
  const ready = writer.ready.then(() => logger.info({ file: databaseFile(config.dataDir) }, 'database ready'))
  ready.catch((err) => logger.error({ err }, 'database writer failed to start'))
  const options = { writer: diskFull.writer }
  const repositories = {
    statements: statementsRepository(db, { ...options, fewPostings: hooks.fewPostings }),
    documents: documentsRepository(db, options),
    attachments: attachmentsRepository(db, options),
    credentials: credentialsRepository(db, options),
    outbox: outboxRepository(db, options),
    settings: settingsRepository(db, options),
    consoleSessions: consoleSessionsRepository(db, options),
    stores: storesRepository(db, options),
    forwarders: forwardersRepository(db, options),
    savedReports: savedReportsRepository(db, options),
    reportCounts: reportCountsRepository(db)
  }
  return {
    kind: 'sqlite',
    engine: 'sqlite',
    ready,
    // Not ready while writes cannot succeed: no writer connected (a writer
    // process that never came up included) or one that failed.
    async ping () {
      if (writer.failed) throw writer.failed
      await ready
      if (writer.failed) throw writer.failed
      if (diskFull.isFull()) throw errors.StoreFull()
      db.prepare('SELECT 1').get()
      return true
    },
    writerRestarting: () => writer.restarting === true,
    async close () {
      await writer.close()
      db.close()
    },
    ...Object.fromEntries(Object.entries(repositories).map(([name, repo]) => [name, translateErrors(repo, translateError)])),
    internals: { db, file: databaseFile(config.dataDir), writerThread: writer.thread }
  }
}

module.exports = { openSqliteStorage }
