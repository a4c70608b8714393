'use strict'

// GET /: the LRS's own address, where a person who was given it starts.
// A browser (it prefers text/html) is sent on to the console; any other
// client (JSON, or no preference) gets the addresses worth knowing, so a
// curl of the bare address is not a dead end either. Both answers depend
// on Accept: `Vary: Accept` keeps a cache from serving one to the other.

const { json, header, response, responseHeader } = require('./openapi-parts')

const CONSOLE = '/console/'
// absolute paths on this host, as the console's pages use them
const LINKS = {
  console: CONSOLE,
  docs: '/docs/',
  openapi: '/openapi.json',
  about: '/xapi/about'
}
const BODY = JSON.stringify({ links: LINKS })

const LINKS_SCHEMA = {
  type: 'object',
  required: ['links'],
  properties: {
    links: {
      type: 'object',
      required: Object.keys(LINKS),
      properties: {
        console: { type: 'string', description: 'The admin console.' },
        docs: { type: 'string', description: 'The API docs (Swagger UI).' },
        openapi: { type: 'string', description: 'This OpenAPI document.' },
        about: { type: 'string', description: 'The xAPI versions this LRS speaks (no credentials needed); its endpoint is the path above it, `/xapi/`.' }
      }
    }
  }
}

function rootRoute () {
  return {
    method: 'get',
    path: '/',
    operationId: 'getRoot',
    summary: 'The LRS\'s address: a browser goes on to the console, other clients get links',
    description: 'A client preferring `text/html` (a browser) is redirected to `/console/`; any other gets the paths of the console, the API docs, this document and `/xapi/about`.',
    scope: null,
    parameters: [header('Accept', { type: 'string' }, '`text/html` before `application/json` (as browsers send it): the redirect; otherwise the links.')],
    responses: {
      200: response('Where to go.', { content: json(LINKS_SCHEMA), headers: { Vary: responseHeader('`Accept`') } }),
      302: response('To the console, for a browser.', { headers: { Location: responseHeader('`/console/`'), Vary: responseHeader('`Accept`') } })
    },
    handler (req, res) {
      res.vary('Accept')
      // no Accept, or */*: the first listed, JSON
      if (req.accepts(['json', 'html']) === 'html') return res.redirect(302, CONSOLE)
      res.type('application/json; charset=utf-8').send(BODY)
    }
  }
}

module.exports = { rootRoute, LINKS }
