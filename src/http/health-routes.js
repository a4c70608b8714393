'use strict'

const express = require('express')

// Liveness: the process answers. Readiness: the database answers and its
// indexes are ensured; load balancers stop routing here while it fails.
function healthRoutes ({ database, lifecycle }) {
  const router = express.Router()
  router.get('/health/live', (req, res) => res.json({ status: 'ok' }))
  router.get('/health/ready', async (req, res) => {
    if (lifecycle.shuttingDown) return res.status(503).json({ status: 'shutting down' })
    try {
      const indexesReady = await database.ping()
      if (!indexesReady) return res.status(503).json({ status: 'starting', database: 'reachable, indexes not ready' })
      res.json({ status: 'ok', database: database.engine })
    } catch (err) {
      res.status(503).json({ status: 'unavailable', database: 'unreachable', message: err.message })
    }
  })
  return router
}

module.exports = { healthRoutes }
