'use strict'

// The storage port: the repositories the rest of the LRS uses, from the
// engine the configuration picks. Nothing outside src/storage/ knows an
// engine. Each engine returns:
//   statements   storeBatch, insertStored, restamp, findOne, findBodies,
//                findReferencedIds, findIdsReferencing, findReferencingIds(q, { beyond, deadline })
//                (statement-refs.js), query(q, { deadline }), count({ store })
//                (src/storage/statement-query.js), findByAgent, erase, scan,
//                order: { visibleInStoredOrder (true: a statement is never
//                visible before one stored earlier), compare(rowA, rowB) },
//                aggregate({ since, until, authorityKeys, top }): for the whole
//                hours from since's to until's, { total (all stored),
//                hours: [{ start, count }], verbs: [{ verb, count }],
//                activities: [{ activity, count }] (object activities), the
//                top of each, authorities: [{ authorityKey, count }] (null:
//                one not in authorityKeys, where the engine cannot name it) }
//   documents    get, insert, replace, delete, list, deleteMany, eraseAgent,
//                countAgent
//   attachments  saveMany, findMany
//   credentials  upsert, create, setScopes, remove, recordUse, all, changeMark
//   outbox       lease, hold, release, remove, deadLetter, listDeadLetters,
//                replayDeadLetters, discardDeadLetters, stats (entries are written by storeBatch)
//   settings     getOrCreate, takeLease, named([name or 'prefix:']) -> [{ name, value }],
//                replace(name, from, to) (false: it was no longer `from`)
//   consoleSessions  create({ idHash, data, at, idleBefore, createdBefore }), get(idHash)
//                -> { data, createdAt, seenAt } | null, touch(idHash, at), remove(idHash)
//   stores       create({ id, name }) -> 'created' | 'taken' (the id) | 'full' (no more stores),
//                rename({ id, name }) (false: no such store), all() [{ number, id, name, createdAt }]
//                (src/stores/store-keys.js: how the stores' data is kept apart)
//   forwarders   all() [{ id, store, revision, definition, createdAt, updatedAt }],
//                create({ id, store, definition }) (false: no such store),
//                replace({ id, store, revision, definition }) -> 'changed' | 'moved' | 'missing',
//                remove({ id, store, upstream }) (its queue and dead letters with it)
//   savedReports list({ store }), get({ id, store }) -> { id, store, revision, name,
//                definition, createdAt, updatedAt } | null, create({ id, store, name,
//                definition }) (false: no such store), replace({ id, store, revision, name,
//                definition }) -> 'changed' | 'moved' | 'missing', remove({ id, store })
//   reportCounts source ('rollups': kept by the writer; 'aggregation': the
//                database's), available() (false: not yet, read the statements),
//                span({ store }) -> { firstHour,
//                lastHour } | null, statements({ store, fromHour, toHour, verb,
//                by }) -> [{ verb?, n }], learners({ store, fromHour, toHour })
//                -> [learner], funnel({ store, grouping, fromHour, toHour }) -> [{ activity,
//                learner, n, launched, completed, passed }] (report-fields.js),
//                storedRanges({ store, fromHour, toHour }) -> [{ sinceMs,
//                untilMs }] | null (where statements of those hours were stored):
//                counted statements per hour of their timestamp
//                (ms / 3,600,000), voided ones never (sqlite/report-rollups.js,
//                mongodb/report-counts.js)
// and kind ('sqlite' | 'mongodb'), ready (a promise), ping(), close(),
// writerRestarting() (true while writes wait for a writer being replaced).
// Engine failures reach callers as
// catalogue errors (DatabaseUnavailable, QueryTimeout).
//
// checkStorage(config, { quick }) looks at a store without opening it for
// use (`lrs check`): read-only, on a stopped or a live store, it resolves
// { ok, problems: [sentence], summary }.
//
// openMigrationSource(config, logger, { lock }) and openMigrationTarget(config,
// logger): a move from one engine to another (`lrs migrate`,
// src/transfer/migrate.js), for now from SQLite to MongoDB. The source reads
// every kind of data in key order from a position (sqlite/migration-source.js);
// the target writes each kind idempotently and reads it back for the
// comparison (mongodb/migration-target.js).

const { openMongoStorage } = require('./mongodb')
const { openSqliteStorage } = require('./sqlite')
const { checkMongoStore } = require('./mongodb/check')
const { checkSqliteStore } = require('./sqlite/check')
const { openSqliteMigrationSource } = require('./sqlite/migration-source')
const { openMongoMigrationTarget } = require('./mongodb/migration-target')

function openStorage (config, logger, options) {
  return config.storage === 'mongodb' ? openMongoStorage(config, logger, options) : openSqliteStorage(config, logger, options)
}

async function checkStorage (config, { quick = false } = {}) {
  return config.storage === 'mongodb' ? checkMongoStore(config) : checkSqliteStore(config, { quick })
}

function openMigrationSource (config, logger, options) {
  if (config.storage !== 'sqlite') throw new Error('a move to MongoDB starts from a SQLite store: the configuration names MongoDB (unset MONGODB_URI)')
  return openSqliteMigrationSource(config, logger, options)
}

function openMigrationTarget (config, logger) {
  if (config.storage !== 'mongodb') throw new Error('a move goes to a MongoDB database (MONGODB_URI)')
  return openMongoMigrationTarget(config, logger)
}

module.exports = { openStorage, checkStorage, openMigrationSource, openMigrationTarget }
