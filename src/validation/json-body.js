'use strict'

// JSON request bodies (the admin API), checked against a schema compiled at
// start: the `body.schema` of a route declaration (src/http/route.js).

const Ajv = require('ajv')
const { errors } = require('../errors')
const { describeAjvError } = require('./ajv')
const { isJsonObject } = require('../lib/json-object')

const ajv = new Ajv({ allErrors: false, strict: true })

// Returns (body) -> body, or throws 400 naming what is wrong.
function checkBody (schema) {
  const validate = ajv.compile(schema)
  return function check (body) {
    if (!isJsonObject(body)) throw errors.BadRequest('the body must be a JSON object (Content-Type: application/json)')
    if (!validate(body)) throw errors.BadRequest(describeAjvError(validate.errors, 'body'))
    return body
  }
}

module.exports = { checkBody }
