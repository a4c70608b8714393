'use strict'

const express = require('express')
const { errors } = require('../errors')

// Liveness: the process answers. Readiness: the database answers and its
// indexes are ensured; load balancers stop routing here while it fails.
// Anonymous callers learn up or down and, for a full store, that it is
// full; never other causes (those go to the log).
function healthRoutes ({ storage, lifecycle, logger }) {
  const router = express.Router()
  router.get('/health/live', (req, res) => res.json({ status: 'up' }))
  router.get('/health/ready', async (req, res) => {
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
  })
  return router
}

module.exports = { healthRoutes }
