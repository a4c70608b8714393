'use strict'

// The operators' API under /admin, for credentials with the `admin` scope
// (which `all` does not include), checked once for the whole router (app.js
// mounts these routes as one group). JSON in and out; described in
// /openapi.json from these declarations.

const { credentialsRoutes } = require('./credentials-routes')
const { agentsRoutes } = require('./agents-routes')
const { statementsRoutes } = require('./statements-routes')
const { forwardingRoutes } = require('./forwarding-routes')
const { forwardersRoutes } = require('./forwarders-routes')
const { overviewRoutes } = require('./overview-routes')

function adminRoutes (deps) {
  return [...credentialsRoutes(deps), ...agentsRoutes(deps), ...statementsRoutes(deps), ...forwardingRoutes(deps), ...forwardersRoutes(deps), ...overviewRoutes(deps)]
}

module.exports = { adminRoutes }
