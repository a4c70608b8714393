'use strict'

// The MongoDB connection. The driver connects lazily and reconnects by
// itself, so a database that is down at start or goes away later never
// crashes a worker: operations fail fast (server selection timeout) and
// storage turns that into DatabaseUnavailable (503) until it is back.

const { MongoClient, MongoNetworkTimeoutError } = require('mongodb')
const { ensureIndexes } = require('./indexes')
const { recordMboxCase } = require('./settings')

const SERVER_SELECTION_TIMEOUT_MS = 5000
// Readiness asks the database this long at most: a host cut off from it
// (packets dropped, no refusal) would otherwise wait on a pooled connection
// until the socket timeout.
const PING_TIMEOUT_MS = 2000
// The driver waits without end by default for an answer on a connection
// and for a free connection: a request sent as the database went away (or
// a host was cut off from it) then waited for ever, and with it every
// statement write queued behind it on that worker (issue 55: 429s for
// minutes after the database was back). Past the longest the LRS itself
// waits (a query's deadline, a write's), the connection is given up.
const SOCKET_SLACK_MS = 5000
// How often the driver checks each server (its default: 10 s). A host
// finds the database back on its next check, or on a write's own attempt:
// once a second keeps a host that was cut off or outlived an outage from
// waiting for the check (measured: up to 3 s after the database's return
// through a TCP proxy, which accepts and then drops the connections while
// the database is away). One small command a second per worker.
const HEARTBEAT_MS = 1000
// Longest a new connection, the driver's monitor's included, may take to
// be made and answer its handshake (the driver's default: 30 s). Measured
// with three hosts on one FerretDB stopped and started again under load:
// in one run in three a worker's monitor opened its connection as the
// database came back and that handshake never answered; the worker failed
// every operation with the monitor's last error until the attempt timed
// out, 30 s and more by default, 5.3 s at 5 s, while the other workers
// stored within a second. 2 s bounds it, and is ample for a connection and
// handshake to a database (milliseconds on a network, hundreds of them
// across regions).
const CONNECT_TIMEOUT_MS = 2000

function connect (config, logger, { monitorCommands = false } = {}) {
  const client = new MongoClient(config.mongodbUri, {
    serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS,
    socketTimeoutMS: Math.max(config.queryTimeoutMs, config.writeTimeoutMs) + SOCKET_SLACK_MS,
    // as long: a bulk import's chunk on FerretDB reads its ids one by one,
    // a thousand at once, and at the write timeout that queue failed (503)
    waitQueueTimeoutMS: Math.max(config.queryTimeoutMs, config.writeTimeoutMs) + SOCKET_SLACK_MS,
    heartbeatFrequencyMS: HEARTBEAT_MS,
    connectTimeoutMS: CONNECT_TIMEOUT_MS,
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
      let timer
      const late = new Promise((resolve, reject) => {
        timer = setTimeout(() => reject(new MongoNetworkTimeoutError(`the database did not answer a ping within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS)
      })
      try {
        // timeoutMS, not only the race: a ping given up on would otherwise
        // keep its pooled connection until the socket timeout (35 s by
        // default), and a readiness probe every second filled the pool
        // with them while a host was cut off
        await Promise.race([db.command({ ping: 1 }, { timeoutMS: PING_TIMEOUT_MS }), late])
      } finally {
        clearTimeout(timer)
      }
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
