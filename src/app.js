'use strict'

// Builds the Express app from its dependencies. Never reads the environment
// and never listens (src/server.js does; tests build it on port 0).

const express = require('express')
const { requestContext } = require('./http/request-context')
const { healthRoutes } = require('./http/health-routes')
const { cors } = require('./http/cors')
const { xapiVersion, fallbackVersion } = require('./http/xapi-version')
const { errorHandler, notFound } = require('./http/error-handler')
const { authenticate } = require('./auth/basic-auth')
const { createRefusalPacer } = require('./http/refusal-pacing')
const { aboutRoutes } = require('./resources/about/about-routes')
const { xapiResourceRoutes } = require('./resources/routes')
const { consistentThrough } = require('./resources/statements/statements-routes')
const { adminRoutes } = require('./admin/admin-routes')
const { metricsRoutes } = require('./metrics/metrics-routes')
const { requestMetrics } = require('./metrics/request-metrics')
const { openapiDocument } = require('./http/openapi-document')
const { version: packageVersion } = require('../package.json')

function createApp (deps) {
  const { config, logger, lifecycle, credentials, shedLoad, readBodies, instruments } = deps
  const openapi = openapiDocument({ version: packageVersion })
  const paced = createRefusalPacer({ perSecond: config.refusalsPerSecond, holdMaxMs: config.refusalHoldMaxMs, lifecycle })
  const openapiJson = JSON.stringify(openapi)
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false) // xAPI wants strong ETags where it wants them, set by the resources
  app.set('query parser', 'simple')
  app.set('trust proxy', config.trustProxy)

  app.use(requestContext(logger, { onFinish: requestMetrics(instruments, Object.keys(openapi.paths)) }))
  // Every response carries the header; xAPI routes replace it with the
  // negotiated version.
  const version = fallbackVersion(config)
  app.use((req, res, next) => {
    res.setHeader('X-Experience-API-Version', version)
    // While shutting down, requests are still served; the connection closes after.
    if (lifecycle.shuttingDown) res.setHeader('Connection', 'close')
    next()
  })
  app.use(healthRoutes(deps))
  app.get('/openapi.json', (req, res) => res.type('application/json; charset=utf-8').send(openapiJson))
  app.use(metricsRoutes(deps))

  const xapi = express.Router({ caseSensitive: true })
  xapi.use(cors(config))
  xapi.use(aboutRoutes(deps))
  xapi.use('/statements', consistentThrough(config)) // on every statements response, 401 included
  xapi.use(paced(authenticate(credentials))) // before the body is read
  xapi.use(paced(shedLoad))
  xapi.use(readBodies)
  xapi.use(xapiResourceRoutes(deps, { versionCheck: xapiVersion(config) }))
  app.use('/xapi', xapi)

  const admin = express.Router({ caseSensitive: true })
  admin.use(paced(authenticate(credentials)))
  admin.use(express.json({ limit: '1mb' }))
  admin.use(adminRoutes(deps))
  app.use('/admin', admin)

  app.use(notFound)
  app.use(errorHandler())
  return app
}

module.exports = { createApp }
