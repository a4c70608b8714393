'use strict'

// Builds the Express app from its dependencies. Never reads the environment
// and never listens (src/server.js does; tests build it on port 0).

const express = require('express')
const { requestContext } = require('./http/request-context')
const { healthRoutes } = require('./http/health-routes')
const { cors } = require('./http/cors')
const { rawBody } = require('./http/raw-body')
const { xapiVersion, DEFAULT_VERSION } = require('./http/xapi-version')
const { errorHandler, notFound } = require('./http/error-handler')
const { aboutRoutes } = require('./resources/about/about-routes')
const { xapiResourceRoutes } = require('./resources/routes')

function createApp (deps) {
  const { config, logger, lifecycle } = deps
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false) // xAPI wants strong ETags where it wants them, set by the resources
  app.set('query parser', 'simple')

  app.use(requestContext(logger))
  // Every response carries the header; xAPI routes replace it with the
  // negotiated version.
  const fallbackVersion = config.defaultXapiVersion === 'auto' ? DEFAULT_VERSION : config.defaultXapiVersion
  app.use((req, res, next) => {
    res.setHeader('X-Experience-API-Version', fallbackVersion)
    next()
  })
  app.use((req, res, next) => {
    // While shutting down, requests are still served; the connection closes after.
    if (lifecycle.shuttingDown) res.setHeader('Connection', 'close')
    next()
  })
  app.use(healthRoutes(deps))

  const xapi = express.Router({ caseSensitive: true })
  xapi.use(cors)
  xapi.use(aboutRoutes(deps))
  xapi.use(rawBody({ limit: config.bodyLimit, maxInFlightBytes: config.maxInFlightBytes }))
  xapi.use(xapiResourceRoutes(deps, { versionCheck: xapiVersion(config) }))
  app.use('/xapi', xapi)

  app.use(notFound)
  app.use(errorHandler())
  return app
}

module.exports = { createApp }
