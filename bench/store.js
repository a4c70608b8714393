'use strict'

// The store a benchmark runs the LRS on, started fresh and stopped by the
// caller: `sqlite` (the default engine: a file in a temporary folder),
// `ferretdb` (the mongodb engine on FerretDB 1.24, as tests run it) or
// `mongodb` (BENCH_MONGODB_URI, a real MongoDB of yours).
// BENCH_ENGINE picks the default.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { execFileSync } = require('node:child_process')
const { MongoClient } = require('mongodb')
const { startFerretDB } = require('../tools/ferretdb')
const { freePort } = require('../tools/free-port')
const { openDatabase } = require('../src/storage/sqlite/open')
const { idToBlob } = require('../src/storage/sqlite/ids')
const { SEQ_OF_ID } = require('../src/storage/sqlite/schema')

const ENGINES = ['sqlite', 'ferretdb', 'mongodb']

function duBytes (dir) {
  return Number(execFileSync('du', ['-sb', dir], { encoding: 'utf8' }).split('\t')[0])
}

function sqliteStore (dataDir) {
  const read = (fn) => {
    const db = openDatabase(dataDir, { readonly: true })
    try { return fn(db) } finally { db.close() }
  }
  return {
    engine: 'sqlite',
    lrsEnv: { MONGODB_URI: '', LRS_DATA_DIR: dataDir },
    dataDir,
    count: async () => read((db) => db.prepare('SELECT count(*) FROM statements').pluck().get()),
    // From the hourly counters the writer keeps (schema.js): a count(*)
    // reads every page of the statements, seconds at 10 M.
    countFast: async () => read((db) => db.prepare('SELECT coalesce(sum(count), 0) FROM hourly_totals').pluck().get()),
    async countIds (ids) {
      return read((db) => {
        const find = db.prepare(SEQ_OF_ID).pluck()
        return ids.filter((id) => find.get({ id: idToBlob(id) }) !== undefined).length
      })
    },
    // After a checkpoint: what the data takes, not what the WAL holds meanwhile.
    bytesOnDisk () {
      const db = openDatabase(dataDir)
      try { db.pragma('wal_checkpoint(TRUNCATE)') } finally { db.close() }
      return duBytes(dataDir)
    },
    async stop () { fs.rmSync(dataDir, { recursive: true, force: true }) }
  }
}

function mongoStore ({ engine, uri, dbName, dataDir, stop }) {
  let client = null
  const collection = () => {
    if (!client) client = new MongoClient(uri)
    return client.db(dbName).collection('statements')
  }
  return {
    engine,
    lrsEnv: { MONGODB_URI: uri, MONGODB_DB: dbName },
    uri,
    dbName,
    count: () => collection().countDocuments({ body: { $exists: true } }),
    async countIds (ids) {
      let n = 0
      for (let i = 0; i < ids.length; i += 1000) n += await collection().countDocuments({ _id: { $in: ids.slice(i, i + 1000) } })
      return n
    },
    bytesOnDisk: () => (dataDir ? duBytes(dataDir) : null),
    async stop () {
      if (client) await client.close()
      await stop()
    }
  }
}

async function startStore (engine = process.env.BENCH_ENGINE || 'sqlite') {
  if (!ENGINES.includes(engine)) throw new Error(`unknown engine ${engine} (${ENGINES.join(', ')})`)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `lrs-bench-${engine}-`))
  if (engine === 'sqlite') return sqliteStore(dataDir)
  const dbName = 'bench_' + Date.now()
  if (engine === 'mongodb') {
    if (!process.env.BENCH_MONGODB_URI) throw new Error('the mongodb engine needs BENCH_MONGODB_URI')
    fs.rmSync(dataDir, { recursive: true, force: true })
    return mongoStore({ engine, uri: process.env.BENCH_MONGODB_URI, dbName, stop: async () => {} })
  }
  const port = await freePort()
  let db = await startFerretDB({ dataDir, port })
  const store = mongoStore({ engine, uri: db.uri, dbName, dataDir, stop: async () => { await db.stop(); fs.rmSync(dataDir, { recursive: true, force: true }) } })
  // kill -9 of the database server, started again on the same data after `downMs`.
  store.kill = async ({ downMs = 2000 } = {}) => {
    const pid = db.pid
    process.kill(pid, 'SIGKILL')
    await new Promise((resolve) => setTimeout(resolve, downMs))
    db = await startFerretDB({ dataDir, port })
    return pid
  }
  return store
}

module.exports = { startStore, ENGINES }
