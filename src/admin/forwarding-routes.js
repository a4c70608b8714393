'use strict'

// Forwarding dead letters under /admin/forwarding:
//   GET  /admin/forwarding/dead-letters          statements an upstream refused for good
//   POST /admin/forwarding/dead-letters/replay   puts them back in the outbox

const express = require('express')
const { errors } = require('../errors')

const MAX_LIST = 1000

function forwardingRoutes ({ storage }) {
  const router = express.Router({ caseSensitive: true })

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

function listParams ({ upstream, limit, ...rest }) {
  const unknown = Object.keys(rest)
  if (unknown.length) throw errors.InvalidParameter(`unknown parameter "${unknown[0]}"`)
  if (upstream !== undefined && typeof upstream !== 'string') throw errors.InvalidParameter('upstream must be a string')
  let n = MAX_LIST
  if (limit !== undefined) {
    n = Number(limit)
    if (!Number.isInteger(n) || n < 1 || n > MAX_LIST) throw errors.InvalidParameter(`limit must be an integer from 1 to ${MAX_LIST}`)
  }
  return { upstream: upstream || null, limit: n }
}

module.exports = { forwardingRoutes }
