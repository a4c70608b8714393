'use strict'

// Reads config, connects, listens, tells PM2 it is ready, and shuts down
// gracefully: stop accepting, flush the write batcher, close, exit.

const crypto = require('node:crypto')
const http = require('node:http')
const net = require('node:net')
const { loadConfig } = require('./config')
const { EXIT_STARTUP, exitAfterStartFailure } = require('./errors')
const { createLogger } = require('./logger')
const { openStorage } = require('./storage')
const { createCredentialStore } = require('./auth/credential-store')
const { createLrsIssuer } = require('./auth/tokens/lrs-issuer')
const { sealedSettings } = require('./auth/sealed-settings')
const { sealedSecrets } = require('./auth/sealed-secrets')
const { createBearerTokens } = require('./auth/tokens/bearer-tokens')
const { createConsoleSessions } = require('./console/sso/sessions')
const { createSsoClient } = require('./console/sso/sso-client')
const { createServices } = require('./services')
const { createMoreCursor } = require('./resources/statements/more-cursor')
const { createLoadShedder } = require('./http/load-shedding')
const { createApp } = require('./app')
const { requestBodies } = require('./http/raw-body')
const { createInstruments } = require('./metrics/instruments')
const { createClusterMetrics } = require('./metrics/cluster-metrics')
const { startRetention } = require('./stores/retention')
const { createStoreLabels } = require('./metrics/store-labels')
const { useMboxCase } = require('./resources/agents/agent-keys')

// Reads how the store keys mboxes into agent-keys.js, retrying while the
// database cannot say (down at start, a writer restarting) until it can or
// the worker shuts down.
async function readMboxCase (storage, logger, lifecycle) {
  for (let delay = 200; !lifecycle.shuttingDown; delay = Math.min(delay * 2, 5000)) {
    try {
      await storage.ready
      return useMboxCase(await storage.settings.mboxCase())
    } catch (err) {
      logger.warn({ err, retryInMs: delay }, 'could not read how the store keys mboxes; xAPI and admin requests wait, then get 503')
      await new Promise((resolve) => setTimeout(resolve, delay).unref())
    }
  }
  throw new Error('shutting down')
}

// `hooks`: test-only pauses between steps of the write path (see write-batch.js
// and the storage engines), for deterministic race tests.
async function startServer (config, { logger = createLogger(config), monitorCommands = false, hooks = {} } = {}) {
  const lifecycle = { shuttingDown: false }
  const storage = openStorage(config, logger, { monitorCommands, hooks })
  // how the store keys mboxes, before a request makes a key (app.js holds them)
  const keysKnown = readMboxCase(storage, logger, lifecycle)
  const credentials = createCredentialStore({ config, storage, logger, hooks })
  const credentialsLoaded = credentials.start()
  // its own secrets (token-signing keys, the cursor key) sealed under LRS_SECRETS_KEY
  const ownSecrets = sealedSettings(storage.settings, sealedSecrets({ current: config.secretsKey, old: config.secretsOldKeys }))
  const lrsIssuer = createLrsIssuer({ config, settings: ownSecrets, credentials, now: hooks.now })
  // the console's single sign-on, when configured
  const consoleSessions = config.consoleOidcIssuer ? createConsoleSessions({ config, repository: storage.consoleSessions, now: hooks.now }) : null
  const ssoClient = config.consoleOidcIssuer ? createSsoClient({ config, logger }) : null
  const tokens = createBearerTokens({ config, credentials, stores: storage.stores, lrsIssuer, logger, now: hooks.now, refetchGapMs: hooks.jwksRefetchGapMs })
  const readBodies = requestBodies({ limit: config.bodyLimit, maxInFlightBytes: config.maxInFlightBytes })
  let batcher = null
  const storeLabels = createStoreLabels(storage)
  const instruments = createInstruments({ statementsInFlight: () => batcher.statementsInFlight(), bytesInFlight: readBodies.heldBytes, storeLabel: storeLabels.labelOf })
  const services = createServices({ config, storage, credentials, logger, instruments, hooks })
  batcher = services.batcher
  const clusterMetrics = createClusterMetrics({ dataDir: config.dataDir, publishMs: config.metricsPublishMs, instruments, logger })
  clusterMetrics.start()
  // `hooks.retentionIntervalMs`: tests only, runs more often than a second
  const retention = startRetention({ storage, logger, intervalMs: hooks.retentionIntervalMs || config.retentionIntervalS * 1000, now: hooks.now })
  const moreCursor = createMoreCursor(async () => config.cursorKey ||
    ownSecrets.getOrCreate('more-cursor-key', crypto.randomBytes(32).toString('base64')))
  const shedLoad = createLoadShedder({ maxWaitMs: config.maxWaitMs, batcher: services.batcher, writerRestarting: storage.writerRestarting, databaseDown: services.databaseDown })
  const app = createApp({ config, logger, lifecycle, storage, keysKnown, credentials, lrsIssuer, tokens, consoleSessions, ssoClient, moreCursor, shedLoad, readBodies, instruments, clusterMetrics, ...services })
  const server = http.createServer(app)
  server.keepAliveTimeout = config.keepAliveTimeoutMs
  server.headersTimeout = config.keepAliveTimeoutMs + 1000
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(config.port, config.host, resolve)
  })
  const { port } = server.address()
  const url = `http://${['0.0.0.0', '::'].includes(config.host) ? 'localhost' : config.host}:${port}`
  logger.info({ port, storage: storage.kind }, `LRS listening on ${url}/xapi`)
  // From what the credential store loaded: no read of its own (the write
  // path's tests count the reads it makes).
  credentialsLoaded.then(() => {
    if (credentials.count() === 0) logger.warn('no credential exists yet, so every xAPI request gets 401: set LRS_ADMIN_USER and LRS_ADMIN_PASSWORD and start again, or create one with `npx lrs credential create KEY` (it reads the secret from stdin or a prompt)')
  }, () => {}) // a store that cannot be read is reported where it is read

  // Shutdown: stop accepting connections (in PM2 cluster mode the master
  // then routes new ones to the other workers) but keep serving the open
  // keep-alive connections, answering on them with `Connection: close` so
  // each client finishes its request and reconnects elsewhere, until the
  // clients have closed them all or the grace period is over; only then
  // are the idle ones closed. Closing an idle keep-alive socket races with
  // a request the client may be sending on it, which then fails: at once
  // (what http's close() does) it hit requests under way, and after a
  // fixed 1.5 s the client pool's spare sockets, which it had not needed
  // since (1 to 5 per worker in `pm2 reload` under load; one request in
  // about eight reloads failed). Then flush the write batcher and close
  // the database.
  let closing = null
  function close ({ graceMs = config.shutdownGraceMs } = {}) {
    if (closing) return closing
    lifecycle.shuttingDown = true
    closing = (async () => {
      const closed = new Promise((resolve) => net.Server.prototype.close.call(server, () => resolve()))
      let timer
      await Promise.race([closed, new Promise((resolve) => { timer = setTimeout(resolve, graceMs) })])
      clearTimeout(timer)
      server.closeIdleConnections()
      await closed
      await services.close()
      await retention.stop()
      await clusterMetrics.stop()
      await credentials.stop()
      await storage.close()
    })()
    return closing
  }

  return { app, server, port, url: `http://127.0.0.1:${port}`, storage, services, credentialsLoaded, close }
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
    const startup = err.name === 'StartupError'
    process.stderr.write(`failed to start: ${startup ? err.message : err.stack || err.message}\n`)
    exitAfterStartFailure(startup ? EXIT_STARTUP : 1)
  })
}

module.exports = { startServer }
