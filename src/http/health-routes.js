'use strict'

const { json, schema, response } = require('./openapi-parts')
const { errors } = require('../errors')

const HEALTH = {
  200: response('Up.', { content: json(schema('Health')) }),
  503: response('Down, with why in a few words (`reason`: `shutting down`, `database unreachable`, `database not ready`, `store full`); the details go to the log.', { content: json(schema('Health')) })
}

// Liveness: the process answers. Readiness: the database answers and its
// indexes are ensured; load balancers stop routing here while it fails
// (a host cut off from the database is drained, the others keep serving).
// Anonymous callers learn up or down and why in a few fixed words, which
// tell an operator where to look and nothing of the deployment; the
// error itself goes to the log.
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
      if (lifecycle.shuttingDown) return res.status(503).json({ status: 'down', reason: 'shutting down' })
      let ready = false
      let reason = 'database not ready' // reachable, its indexes not ensured yet
      try {
        ready = await storage.ping()
      } catch (err) {
        if (err.code === errors.StoreFull.code) reason = 'store full'
        else {
          reason = 'database unreachable'
          logger.warn({ err }, 'readiness check: database unreachable')
        }
      }
      res.status(ready ? 200 : 503).json(ready ? { status: 'up' } : { status: 'down', reason })
    }
  }]
}

module.exports = { healthRoutes }
