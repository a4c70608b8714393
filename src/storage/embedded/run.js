'use strict'

// Process entry for the embedded database when the LRS runs under PM2 without
// MONGODB_URI (see ecosystem.config.js): one database for all workers.

const { loadConfig } = require('../../config')
const { createToolLogger } = require('../../logger')
const { startEmbeddedDatabase } = require('./embedded-database')

async function main () {
  const config = loadConfig()
  const logger = createToolLogger(config)
  const db = await startEmbeddedDatabase({ dataDir: config.dataDir, port: config.embeddedDbPort, timeoutMs: 300000 })
  logger.info({ engine: db.engine, uri: db.uri, dataDir: config.dataDir }, 'embedded database ready')
  if (process.send) process.send('ready')
  let stopping = false
  db.child.once('exit', (code) => {
    if (stopping) return
    logger.error({ code }, 'embedded database exited')
    process.exit(1)
  })
  const stop = async () => {
    stopping = true
    await db.stop()
    process.exit(0)
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

main().catch((err) => {
  process.stderr.write(`embedded database failed: ${err.message}\n`)
  process.exit(1)
})
