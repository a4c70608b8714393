'use strict'

// GET /admin/overview's counts on a large SQLite store: fills the store
// (LRS_DATA_DIR) with `count` generator statements stored over the last 7
// days, in stored order, through the import's path (insertStored), unless
// it holds them already; then times `calls` calls of
// statements.aggregate for the last 24 hours and the last 7 days, and
// prints P50 and P99 in ms.
//   LRS_DATA_DIR=/tmp/overview-store node bench/overview.js [count=1000000] [calls=50]

const crypto = require('node:crypto')
const { scormStatement } = require('./statement-generator')
const { toRecord } = require('../src/resources/statements/statement-record')
const { loadConfig } = require('../src/config')
const { createLogger } = require('../src/logger')
const { openStorage } = require('../src/storage')

const AUTHORITY = { objectType: 'Agent', name: 'bench', account: { homePage: 'http://localhost/lrs', name: 'bench' } }
const BATCH = 500
const DAY_MS = 24 * 3600000

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)]

async function main () {
  const count = Number(process.argv[2] || 1000000)
  const calls = Number(process.argv[3] || 50)
  const storage = openStorage(loadConfig({ ...process.env, LRS_LOG_LEVEL: 'warn' }), createLogger({ logLevel: 'warn' }))
  await storage.ready
  try {
    const now = Date.now()
    const have = (await storage.statements.aggregate({ since: new Date(now), until: new Date(now) })).total
    if (have < count) {
      const started = Date.now()
      const start = now - 7 * DAY_MS
      for (let i = have; i < count;) {
        const records = []
        for (const end = Math.min(count, i + BATCH); i < end; i++) {
          records.push({ ...toRecord({ ...scormStatement(i), id: crypto.randomUUID() }, { authority: AUTHORITY, xapiVersion: '1.0.3' }), stored: new Date(start + Math.floor(i * 7 * DAY_MS / count)) })
        }
        await storage.statements.insertStored(records)
        if (i % 100000 === 0) console.log(`${i} statements, ${Math.round((Date.now() - started) / 1000)} s`)
      }
    }
    for (const [name, range] of [['24 h', DAY_MS], ['7 days', 7 * DAY_MS]]) {
      const times = []
      let last
      for (let c = 0; c < calls; c++) {
        const until = new Date()
        const t = process.hrtime.bigint()
        last = await storage.statements.aggregate({ since: new Date(until - range), until, authorityKeys: ['account:http://localhost/lrs|bench'] })
        times.push(Number(process.hrtime.bigint() - t) / 1e6)
      }
      times.sort((a, b) => a - b)
      const inRange = last.hours.reduce((n, h) => n + h.count, 0)
      console.log(`${name}: total ${last.total}, in range ${inRange}, ${last.activities.length} top activities; ${calls} calls: P50 ${percentile(times, 50).toFixed(1)} ms, P99 ${percentile(times, 99).toFixed(1)} ms, max ${times[times.length - 1].toFixed(1)} ms`)
    }
  } finally {
    await storage.close()
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1 })
