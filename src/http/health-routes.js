'use strict'

const { json, schema, response } = require('./openapi-parts')

const HEALTH = {
  200: response('Up.', { content: json(schema('Health')) }),
  503: response('Down (or shutting down); the reason goes to the log.', { content: json(schema('Health')) })
}

// Liveness: the process answers. Readiness: the database answers and its
// indexes are ensured; load balancers stop routing here while it fails.
// Anonymous callers learn up or down, never why (that goes to the log).
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
      try {
        ready = await storage.ping()
      } catch (err) {
        logger.warn({ err }, 'readiness check: database unreachable')
      }
      res.status(ready ? 200 : 503).json({ status: ready ? 'up' : 'down' })
    }
  }]
}

module.exports = { healthRoutes }
