'use strict'

// Soak (the Veracity study): sustained ingest, 10 connections of
// 20-statement batches back to back, for a fixed time; per window of
// `windowSeconds`: statements/s, P99, and on the mongodb engine the
// store's own reads per statement written (serverStatus opcounters: query
// and getmore against inserts). The readback that halved Veracity's
// throughput would show there; the write path reads nothing, so what
// remains is the background: each worker's credential change check
// (2 a second) and forwarding when configured. The SQLite engine runs
// inside the LRS's processes and keeps no such counters.

const autocannon = require('autocannon')
const { MongoClient } = require('mongodb')
const { statementBodies } = require('./statement-generator')
const { startLrs } = require('./lrs-process')
const { startStore } = require('./store')
const { percentile } = require('./report')

const BATCH = 20
const CONNECTIONS = 10

const READ_COMMANDS = ['find', 'getMore', 'aggregate', 'count', 'distinct']

// Reads the store has served so far: MongoDB's opcounters (query, getmore),
// or on FerretDB, which has none, its per-command counters.
async function storeReads (client) {
  try {
    const s = await client.db('admin').command({ serverStatus: 1 })
    if (s.opcounters) return Number(s.opcounters.query || 0) + Number(s.opcounters.getmore || 0)
    const commands = (s.metrics && s.metrics.commands) || {}
    return READ_COMMANDS.reduce((n, c) => n + Number((commands[c] && commands[c].total) || 0), 0)
  } catch {
    return null
  }
}

// target: { engine } or { url, auth }. Returns the windows.
async function soak ({ target, seconds = 60, windowSeconds = 5, onWindow = () => {} }) {
  const nextBody = statementBodies(BATCH)
  const store = target.url ? null : await startStore(target.engine)
  const lrs = target.url ? { url: target.url, stop: async () => {} } : await startLrs({ store })
  const mongo = store && store.uri ? new MongoClient(store.uri) : null
  const auth = target.url ? target.auth : 'bench:bench-secret'
  const windows = []
  let current = { accepted: 0, ms: [] }
  let reads = mongo ? await storeReads(mongo) : null
  const started = Date.now()
  const roll = async () => {
    const now = mongo ? await storeReads(mongo) : null
    const statements = current.accepted * BATCH
    const delta = now !== null && reads !== null ? now - reads : null
    const w = {
      atSeconds: Math.round((Date.now() - started) / 1000),
      statementsPerSec: Math.round(statements / windowSeconds),
      p99Ms: percentile(current.ms, 99),
      storeReadsPerSec: delta === null ? null : Math.round((delta / windowSeconds) * 10) / 10,
      storeReadsPerStatement: delta !== null && statements ? Math.round((delta / statements) * 10000) / 10000 : null
    }
    reads = now
    current = { accepted: 0, ms: [] }
    windows.push(w)
    onWindow(w)
  }
  let rolling = Promise.resolve()
  const timer = setInterval(() => { rolling = rolling.then(roll) }, windowSeconds * 1000)
  try {
    await autocannon({
      url: lrs.url + '/xapi/statements',
      method: 'POST',
      connections: CONNECTIONS,
      duration: seconds,
      headers: { 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3', Authorization: 'Basic ' + Buffer.from(auth).toString('base64') },
      requests: [{ setupRequest: (req) => ({ ...req, body: nextBody() }) }]
    }).on('response', (client, status, bytes, ms) => {
      if (status === 200) { current.accepted++; current.ms.push(ms) }
    })
  } finally {
    clearInterval(timer)
    await rolling
    if (mongo) await mongo.close()
    await lrs.stop()
    if (store) await store.stop()
  }
  return windows
}

module.exports = { soak }
