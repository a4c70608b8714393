'use strict'

// Forwarding dead letters under /admin/forwarding:
//   GET  /admin/forwarding/dead-letters          statements an upstream refused for good
//   POST /admin/forwarding/dead-letters/replay   puts them back in the outbox

const express = require('express')
const { parameter: p } = require('../validation/query-parameters')

const MAX_LIST = 1000

function forwardingRoutes ({ storage, validator }) {
  const router = express.Router({ caseSensitive: true })
  const parameters = validator.queryParameters({
    properties: { upstream: p.string, limit: { type: 'integer', minimum: 1, maximum: MAX_LIST, description: `an integer from 1 to ${MAX_LIST}` } }
  })
  function listParams (sent) {
    const { upstream, limit = MAX_LIST } = parameters(sent)
    return { upstream: upstream || null, limit }
  }

  router.get('/forwarding/dead-letters', async (req, res) => {
    const { upstream, limit } = listParams(req.query)
    const deadLetters = await storage.outbox.listDeadLetters({ upstream, limit })
    res.json({ deadLetters })
  })

  router.post('/forwarding/dead-letters/replay', async (req, res) => {
    const { upstream, limit } = listParams({ ...req.query, ...(req.body && typeof req.body === 'object' ? req.body : {}) })
    res.json({ replayed: await storage.outbox.replayDeadLetters({ upstream, limit }) })
  })

  return router
}

module.exports = { forwardingRoutes }
