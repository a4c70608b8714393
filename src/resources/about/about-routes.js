'use strict'

const { negotiate, fallbackVersion } = require('../../http/xapi-version')
const { json, schema, header, response, VERSION } = require('../../http/openapi-parts')

// GET /xapi/about (Communication 2.8): no auth, no version header needed.
// The body never changes, so it is serialized once.
const ABOUT_BODY = JSON.stringify({ version: ['1.0.3', '2.0.0'] })

function aboutRoutes ({ config }) {
  return [{
    method: 'get',
    path: '/about',
    tag: 'About',
    operationId: 'getAbout',
    summary: 'The xAPI versions this LRS speaks',
    description: 'No credentials and no version header needed; a valid version header is echoed in X-Experience-API-Version.',
    scope: null,
    parameters: [header('X-Experience-API-Version', VERSION, 'Optional here.')],
    responses: { 200: response('About.', { content: json(schema('About')) }) },
    handler (req, res) {
      res.setHeader('X-Experience-API-Version', negotiate(req.headers['x-experience-api-version']) || fallbackVersion(config))
      res.setHeader('Content-Type', 'application/json; charset=utf-8')
      res.end(ABOUT_BODY)
    }
  }]
}

module.exports = { aboutRoutes }
