'use strict'

// The operators' API under /admin, for credentials with the `admin` scope
// (which `all` does not include). JSON in and out; described in
// /openapi.json.

const express = require('express')
const { requireScope } = require('../auth/basic-auth')
const { credentialsRoutes } = require('./credentials-routes')
const { agentsRoutes } = require('./agents-routes')
const { statementsRoutes } = require('./statements-routes')
const { forwardingRoutes } = require('./forwarding-routes')

function adminRoutes (deps) {
  const router = express.Router({ caseSensitive: true })
  router.use(requireScope(deps.credentials, 'admin'))
  router.use(credentialsRoutes(deps))
  router.use(agentsRoutes(deps))
  router.use(statementsRoutes(deps))
  router.use(forwardingRoutes(deps))
  return router
}

module.exports = { adminRoutes }
