'use strict'

const express = require('express')
const { negotiate, fallbackVersion } = require('../../http/xapi-version')

// GET /xapi/about (Communication 2.8): no auth, no version header needed.
// The body never changes, so it is serialized once.
const ABOUT_BODY = JSON.stringify({ version: ['1.0.3', '2.0.0'] })

function aboutRoutes ({ config }) {
  const router = express.Router()
  router.get('/about', (req, res) => {
    res.setHeader('X-Experience-API-Version', negotiate(req.headers['x-experience-api-version']) || fallbackVersion(config))
    res.setHeader('Content-Type', 'application/json; charset=utf-8')
    res.end(ABOUT_BODY)
  })
  return router
}

module.exports = { aboutRoutes }
