'use strict'

// The query parameters of a route, checked against one schema compiled at
// start (ajv, coercing the query strings as STYLE item 5 says): unknown
// names, names in the wrong case (Communication 3.2.s3.b4), repeated names
// and malformed values are 400 with a message naming the parameter. Each
// property's `description` says what a good value is. Routes declare their
// parameters (src/http/route.js), and /openapi.json shows these schemas.

const { errors } = require('../errors')

function messageOf (error, query) {
  const name = error.instancePath.slice(1)
  if (error.keyword === 'additionalProperties') return `unknown parameter "${error.params.additionalProperty}"`
  if (error.keyword === 'required') return `${error.params.missingProperty} is required`
  if (Array.isArray(query[name])) return `parameter "${name}" is given more than once`
  const described = error.parentSchema && error.parentSchema.description
  return `${name} must be ${described || error.message}`
}

// `ajv`: an instance with the xAPI formats (validation/ajv.js), made with
// coerceTypes. Returns (query) -> the parameters, coerced.
function compileQueryParameters (ajv, { properties, required = [] }) {
  const validate = ajv.compile({ type: 'object', additionalProperties: false, properties, required })
  // Coercion reads "0x10", "1e9" and " 5" as numbers: integers must be
  // written as digits.
  const integers = Object.keys(properties).filter((name) => properties[name].type === 'integer')
  return function checkQuery (query) {
    for (const name of integers) {
      if (typeof query[name] === 'string' && !/^[0-9]{1,15}$/.test(query[name])) throw errors.InvalidParameter(`${name} must be ${properties[name].description}`)
    }
    const params = { ...query }
    if (!validate(params)) throw errors.InvalidParameter(messageOf(validate.errors[0], query))
    return params
  }
}

const parameter = {
  string: { type: 'string', description: 'a single string' },
  // parsed and checked by the route (statement-validator.js parseActorParam)
  agent: { type: 'string', description: 'the JSON text of an Agent (or identified Group)', examples: ['{"mbox":"mailto:learner@example.com"}'] },
  name: { type: 'string', minLength: 1, description: 'a single non-empty string' },
  uuid: { type: 'string', format: 'uuid', description: 'a UUID' },
  iri: { type: 'string', format: 'iri', description: 'an IRI' },
  timestamp: { type: 'string', format: 'timestamp', description: 'an ISO 8601 timestamp' },
  boolean: { type: 'boolean', description: 'true or false' },
  count: { type: 'integer', minimum: 0, description: 'a non-negative integer in digits' }
}

module.exports = { compileQueryParameters, parameter }
