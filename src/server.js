'use strict'

// Reads config, connects, listens, tells PM2 it is ready, and shuts down
// gracefully: stop accepting, flush the write batcher, close, exit.

const http = require('node:http')
const net = require('node:net')
const { loadConfig } = require('./config')
const { createLogger } = require('./logger')
const { openDatabase } = require('./storage/database')
const { createCredentialStore } = require('./auth/credential-store')
const { createServices } = require('./services')
const { createApp } = require('./app')

async function startServer (config, { logger = createLogger(config), monitorCommands = false } = {}) {
  const lifecycle = { shuttingDown: false }
  const database = await openDatabase(config, logger, { monitorCommands })
  const credentials = createCredentialStore({ config, database, logger })
  const credentialsLoaded = credentials.start()
  const services = createServices({ config, database, logger })
  const app = createApp({ config, logger, lifecycle, database, credentials, ...services })
  const server = http.createServer(app)
  server.keepAliveTimeout = 65000
  server.headersTimeout = 66000
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, resolve)
  })
  const { port } = server.address()
  logger.info({ port, database: config.embeddedDatabase ? 'embedded' : 'external' }, 'listening')

  // Shutdown: stop accepting connections (in PM2 cluster mode the master
  // then routes new ones to the other workers) but keep the open keep-alive
  // connections for a grace period, answering on them with
  // `Connection: close` so each client finishes its request and reconnects
  // elsewhere. Closing idle keep-alive sockets at once (what http's close()
  // does) races with requests clients are sending on them, which then fail.
  // Then flush the write batcher and close the database.
  let closing = null
  function close ({ graceMs = config.shutdownGraceMs } = {}) {
    if (closing) return closing
    lifecycle.shuttingDown = true
    closing = (async () => {
      const closed = new Promise((resolve) => net.Server.prototype.close.call(server, () => resolve()))
      await new Promise((resolve) => setTimeout(resolve, graceMs))
      server.closeIdleConnections()
      await closed
      await services.close()
      credentials.stop()
      await database.close()
    })()
    return closing
  }

  return { app, server, port, url: `http://127.0.0.1:${port}`, database, services, credentialsLoaded, close }
}

async function main () {
  const config = loadConfig()
  const logger = createLogger(config)
  const running = await startServer(config, { logger })
  if (process.send) process.send('ready') // PM2 wait_ready

  const shutdown = (signal) => {
    logger.info({ signal }, 'shutting down')
    const force = setTimeout(() => {
      logger.error('graceful shutdown timed out')
      logger.flush(() => process.exit(1))
    }, config.shutdownTimeoutMs)
    force.unref()
    const exit = (code) => logger.flush(() => process.exit(code))
    running.close().then(() => exit(0), (err) => {
      logger.error({ err }, 'shutdown failed')
      exit(1)
    })
  }
  process.once('SIGINT', () => shutdown('SIGINT'))
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.on('message', (msg) => { if (msg === 'shutdown') shutdown('shutdown message') })
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`failed to start: ${err.stack || err.message}\n`)
    process.exit(1)
  })
}

module.exports = { startServer }
