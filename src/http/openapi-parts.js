'use strict'

// Small builders for the OpenAPI fragments a route declaration carries
// (src/http/route.js): its response bodies, response headers and the
// request headers it reads. The shared pieces they point at (schemas,
// headers, the error answers) are in src/http/openapi-document.js.

const ref = (kind, name) => ({ $ref: `#/components/${kind}/${name}` })
const schema = (name) => ref('schemas', name)
const json = (s) => ({ 'application/json': { schema: s } })

// A request header the route reads (documentation only: headers are
// checked by the code that reads them).
function header (name, s, description, required = false) {
  return { name, in: 'header', required, description, schema: s }
}

function responseHeader (description, s = { type: 'string' }) {
  return { description, schema: s }
}

// Every response carries these two (app.js, request-context.js).
const COMMON_HEADERS = {
  'X-Experience-API-Version': ref('headers', 'XapiVersion'),
  'X-Request-Id': ref('headers', 'RequestId')
}

function response (description, { content, headers = {} } = {}) {
  const r = { description, headers: { ...COMMON_HEADERS, ...headers } }
  if (content) r.content = content
  return r
}

const VERSION = { type: 'string', pattern: '^(1\\.0|2\\.0)(\\.[0-9]+)?$', examples: ['2.0.0', '1.0.3'] }
const UUID = { type: 'string', format: 'uuid' }
const DATE_TIME = { type: 'string', format: 'date-time' }

module.exports = { ref, schema, json, header, responseHeader, response, VERSION, UUID, DATE_TIME }
