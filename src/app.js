'use strict'

// Builds the Express app from its dependencies. Never reads the environment
// and never listens (src/server.js does; tests build it on port 0).

const express = require('express')
const { requestContext } = require('./http/request-context')
const { healthRoutes } = require('./http/health-routes')
const { rootRoute } = require('./http/root-route')
const { untilReady } = require('./http/until-ready')
const { cors } = require('./http/cors')
const { xapiVersion, fallbackVersion } = require('./http/xapi-version')
const { errorHandler, notFound } = require('./http/error-handler')
const { createAuthenticator, authenticate } = require('./auth/authenticate')
const { tokenRoutes } = require('./auth/tokens/token-routes')
const { ssoRoutes } = require('./console/sso/sso-routes')
const { storeDirectory } = require('./stores/store-directory')
const { createRefusalPacer } = require('./http/refusal-pacing')
const { aboutRoutes } = require('./resources/about/about-routes')
const { xapiResourceRoutes } = require('./resources/routes')
const { alternateRequestSyntax } = require('./http/alternate-syntax')
const { consistentThrough } = require('./resources/statements/statements-routes')
const { storesRoutes } = require('./admin/stores-routes')
const { adminRoutes } = require('./admin/admin-routes')
const { metricsRoutes } = require('./metrics/metrics-routes')
const { requestMetrics } = require('./metrics/request-metrics')
const { openapiDocument } = require('./http/openapi-document')
const { consoleRoutes } = require('./console/console-routes')
const { feedRoutes } = require('./feed/feed-routes')
const { reportsRoutes } = require('./admin/reports-routes')
const { compressJson } = require('./http/compression')
const { createRouteTable } = require('./http/route')
const { ref, json, response } = require('./http/openapi-parts')
const { errors } = require('./errors')
const { version: packageVersion } = require('../package.json')

function createApp (deps) {
  const { config, logger, lifecycle, credentials, validator, shedLoad, readBodies, instruments } = deps

  // requests that may make an agent's key wait until the store has said how (server.js)
  const afterKeysKnown = untilReady(deps.keysKnown || Promise.resolve(), { waitMs: config.writerWaitMs })
  // Every route, declared once (src/http/route.js): the routers below serve
  // the table, and /openapi.json describes it.
  const paced = createRefusalPacer({ perSecond: config.refusalsPerSecond, holdMaxMs: config.refusalHoldMaxMs, lifecycle })
  // the store a stores/admin credential chooses with X-LRS-Store (authenticate.js)
  const directory = storeDirectory(deps.storage)
  // Basic credentials and bearer tokens (auth/authenticate.js)
  const authenticator = createAuthenticator({ config, credentials, tokens: deps.tokens, sessions: deps.consoleSessions })
  const table = createRouteTable({ authenticator, validator, storeNamed: directory.byId })
  const operations = table.router('', [rootRoute(), ...healthRoutes(deps), openapiRoute(() => openapiJson), ...metricsRoutes(deps)], { tag: 'Operations' })
  const xapiGroup = { cors: true, head: true, parameters: [ref('parameters', 'XapiVersion')] }
  const about = table.router('/xapi', aboutRoutes(deps), { cors: true, head: true })
  const resources = table.router('/xapi', xapiResourceRoutes(deps), {
    ...xapiGroup,
    methodNotAllowed: true,
    // xapi-version.js, alternate-syntax.js and load-shedding.js, before the routes
    errors: [errors.InvalidVersionHeader, errors.BadRequest, errors.TooManyRequests]
  })
  // /admin/stores first: its routes need `stores/admin`, not `admin`
  const stores = table.router('/admin', storesRoutes(deps), { tag: 'Stores' })
  const oauth = table.router('/oauth', tokenRoutes({ ...deps, authenticator }), { tag: 'OAuth' })
  const sso = table.router('/console', ssoRoutes({ ...deps, sessions: deps.consoleSessions, storeNamed: directory.byId }), { tag: 'Console' })
  // /admin/reports before the rest of /admin: `reports` is enough (auth/scopes.js)
  const reports = table.router('/admin', reportsRoutes(deps), { tag: 'Reports' })
  const admin = table.router('/admin', adminRoutes(deps), { tag: 'Admin', scope: 'admin' })
  const feed = table.router('/feed', feedRoutes(deps), { tag: 'Feed', cors: true })
  const openapi = openapiDocument({ version: packageVersion, routes: table.routes() })
  const openapiJson = JSON.stringify(openapi)
  // brotli or gzip for large JSON answers (http/compression.js)
  const compressing = config.compression === 'on'
  const compressed = compressing ? compressJson({ minBytes: config.compressionMinBytes }) : (req, res, next) => next()

  const app = express()
  app.locals.routeTable = table // for the tests that compare it with the router and the document
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
  app.use('/openapi.json', compressed)
  app.use(operations)

  const xapi = express.Router({ caseSensitive: true })
  xapi.use(cors(config))
  xapi.use(about)
  xapi.use('/statements', consistentThrough(config)) // on every statements response, 401 included
  xapi.use('/statements', compressed) // pages of statements; never the documents (compression.js)
  xapi.use(paced(authenticate(authenticator, { storeNamed: directory.byId }))) // before the body is read
  xapi.use(paced(shedLoad))
  xapi.use(afterKeysKnown)
  xapi.use(readBodies)
  xapi.use(alternateRequestSyntax)
  xapi.use(xapiVersion(config))
  xapi.use(resources)
  app.use('/xapi', xapi)

  // the live feed (feed/feed-routes.js): xAPI's credentials and CORS,
  // nothing that buffers or compresses a stream
  const feedRouter = express.Router({ caseSensitive: true })
  feedRouter.use(cors(config))
  feedRouter.use(paced(authenticate(authenticator, { storeNamed: directory.byId })))
  feedRouter.use(afterKeysKnown)
  feedRouter.use(feed)
  app.use('/feed', feedRouter)

  const adminRouter = express.Router({ caseSensitive: true })
  adminRouter.use(compressed)
  adminRouter.use(paced(authenticate(authenticator, { storeNamed: directory.byId })))
  adminRouter.use(afterKeysKnown)
  adminRouter.use(express.json({ limit: '1mb' }))
  adminRouter.use(stores)
  adminRouter.use(reports)
  adminRouter.use(admin)
  app.use('/admin', adminRouter)

  const oauthRouter = express.Router({ caseSensitive: true })
  oauthRouter.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 }))
  oauthRouter.use(oauth)
  // its refusals (a wrong secret, 401; failures over their limit, 429)
  // paced as the APIs' are
  oauthRouter.use((err, req, res, next) => paced((rq, rs, refuse) => refuse(err))(req, res, next))
  app.use('/oauth', oauthRouter)

  // The console and the API docs: static pages calling the APIs above;
  // the console's single sign-on first.
  app.use('/console', sso)
  app.use(consoleRoutes({ compressMinBytes: compressing ? config.compressionMinBytes : null }))

  app.use(notFound)
  app.use(errorHandler())
  return app
}

// GET /openapi.json: the document, serialized once at start.
function openapiRoute (documentJson) {
  return {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenapi',
    summary: 'This document',
    scope: null,
    responses: { 200: response('The OpenAPI 3.1 document.', { content: json({ type: 'object' }) }) },
    handler: (req, res) => res.type('application/json; charset=utf-8').send(documentJson())
  }
}

module.exports = { createApp }
