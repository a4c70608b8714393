'use strict'

// The MongoDB connection. The driver connects lazily and reconnects by
// itself, so a database that is down at start or goes away later never
// crashes a worker: operations fail fast (server selection timeout) and
// storage turns that into DatabaseUnavailable (503) until it is back.

const { MongoClient } = require('mongodb')
const { ensureIndexes } = require('./indexes')
const { recordMboxCase } = require('./settings')

const SERVER_SELECTION_TIMEOUT_MS = 5000

function connect (config, logger, { monitorCommands = false } = {}) {
  const client = new MongoClient(config.mongodbUri, {
    serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
    maxPoolSize: config.mongodbPoolSize,
    retryWrites: true,
    ignoreUndefined: true,
    monitorCommands, // tests count the commands the write path sends
    writeConcern: { w: /^[0-9]+$/.test(config.writeConcern) ? Number(config.writeConcern) : config.writeConcern, j: true }
  })
  const db = client.db(config.mongodbDb)
  const state = { indexesReady: false, engine: 'unknown', closed: false }

  // Indexes are ensured at start, retried until the database answers, without
  // holding up the HTTP listener (liveness and /about never need the database).
  const ready = (async () => {
    for (let delay = 200; !state.closed; delay = Math.min(delay * 2, 5000)) {
      try {
        // An explicit connect: after a failed first attempt the driver's
        // topology is closed and only a new connect() reopens it. Once
        // connected, the driver monitors and reconnects by itself.
        await client.connect()
        state.engine = await detectEngine(db)
        await ensureIndexes(db, { engine: state.engine })
        await recordMboxCase(db)
        state.indexesReady = true
        logger.info({ engine: state.engine, db: config.mongodbDb }, 'database ready')
        return
      } catch (err) {
        logger.warn({ err, retryInMs: delay }, 'database not ready')
        await new Promise((resolve) => setTimeout(resolve, delay))
      }
    }
  })()

  return {
    client,
    db,
    ready,
    get engine () { return state.engine },
    async ping () {
      await db.command({ ping: 1 }, { maxTimeMS: 2000 })
      return state.indexesReady
    },
    async close () {
      state.closed = true
      await client.close()
    }
  }
}

// FerretDB reports itself in buildInfo; some choices depend on it.
async function detectEngine (db) {
  const info = await db.admin().command({ buildInfo: 1 })
  return info.ferretdbVersion || info.ferretdb ? 'ferretdb' : 'mongodb'
}

module.exports = { connect, detectEngine }
