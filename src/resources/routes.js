'use strict'

// The mount table of the authenticated xAPI resources.
const express = require('express')
const { alternateRequestSyntax } = require('../http/alternate-syntax')
const { statementsRoutes } = require('./statements/statements-routes')
const { stateRoutes } = require('./state/state-routes')
const { activityProfileRoutes } = require('./activity-profile/activity-profile-routes')
const { agentProfileRoutes } = require('./agent-profile/agent-profile-routes')
const { activitiesRoutes } = require('./activities/activities-routes')
const { agentsRoutes } = require('./agents/agents-routes')

function xapiResourceRoutes (deps, { versionCheck }) {
  const router = express.Router({ caseSensitive: true })
  router.use(alternateRequestSyntax)
  router.use(versionCheck)
  router.use(statementsRoutes(deps))
  router.use(stateRoutes(deps))
  router.use(activityProfileRoutes(deps))
  router.use(agentProfileRoutes(deps))
  router.use(activitiesRoutes(deps))
  router.use(agentsRoutes(deps))
  return router
}

module.exports = { xapiResourceRoutes }
