'use strict'

const { json, schema, response } = require('./openapi-parts')
const { errors } = require('../errors')

const HEALTH = {
  200: response('Up.', { content: json(schema('Health')) }),
  503: response('Down (or shutting down); the reason goes to the log, except `store full`, which is named.', { content: json(schema('Health')) })
}

// Liveness: the process answers. Readiness: the database answers and its
// indexes are ensured; load balancers stop routing here while it fails.
// Anonymous callers learn up or down and, for a full store, that it is
// full; never other causes (those go to the log).
function healthRoutes ({ storage, lifecycle, logger }) {
  return [{
    method: 'get',
    path: '/health/live',
    operationId: 'getLiveness',
    summary: 'Liveness: the process answers',
    scope: null,
    responses: { 200: HEALTH[200] },
    handler: (req, res) => res.json({ status: 'up' })
  }, {
    method: 'get',
    path: '/health/ready',
    operationId: 'getReadiness',
    summary: 'Readiness: the database answers and its indexes are ensured',
    scope: null,
    responses: HEALTH,
    async handler (req, res) {
      if (lifecycle.shuttingDown) return res.status(503).json({ status: 'down' })
      let ready = false
      let reason
      try {
        ready = await storage.ping()
      } catch (err) {
        // A full store is the operator's to mend and says nothing about the
        // deployment: it is named. Other causes go to the log only.
        if (err.code === errors.StoreFull.code) reason = 'store full'
        else logger.warn({ err }, 'readiness check: database unreachable')
      }
      res.status(ready ? 200 : 503).json({ status: ready ? 'up' : 'down', ...(reason && { reason }) })
    }
  }]
}

module.exports = { healthRoutes }
