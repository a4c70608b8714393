'use strict'

// The authenticated xAPI resources: their route declarations (src/http/route.js),
// served by one router under /xapi (app.js), other methods on their paths 405.
const { statementsRoutes } = require('./statements/statements-routes')
const { stateRoutes } = require('./state/state-routes')
const { activityProfileRoutes } = require('./activity-profile/activity-profile-routes')
const { agentProfileRoutes } = require('./agent-profile/agent-profile-routes')
const { activitiesRoutes } = require('./activities/activities-routes')
const { agentsRoutes } = require('./agents/agents-routes')

function xapiResourceRoutes (deps) {
  return [
    ...statementsRoutes(deps),
    ...stateRoutes(deps),
    ...activityProfileRoutes(deps),
    ...agentProfileRoutes(deps),
    ...activitiesRoutes(deps),
    ...agentsRoutes(deps)
  ]
}

module.exports = { xapiResourceRoutes }
