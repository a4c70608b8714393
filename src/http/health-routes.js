'use strict'

const express = require('express')

// Liveness: the process answers. Readiness: the database answers and its
// indexes are ensured; load balancers stop routing here while it fails.
// Anonymous callers learn up or down, never why (that goes to the log).
function healthRoutes ({ storage, lifecycle, logger }) {
  const router = express.Router()
  router.get('/health/live', (req, res) => res.json({ status: 'up' }))
  router.get('/health/ready', async (req, res) => {
    if (lifecycle.shuttingDown) return res.status(503).json({ status: 'down' })
    let ready = false
    try {
      ready = await storage.ping()
    } catch (err) {
      logger.warn({ err }, 'readiness check: database unreachable')
    }
    res.status(ready ? 200 : 503).json({ status: ready ? 'up' : 'down' })
  })
  return router
}

module.exports = { healthRoutes }
