'use strict'

// Validates statements and agent parameters against the schema of the
// request's negotiated xAPI version, then the named rules.

const { createAjv, describeAjvError } = require('./ajv')
const { statementSchema } = require('./statement-schema')
const { assertStatementRules, assertActor } = require('./statement-rules')
const { errors } = require('../errors')
const { IRI } = require('./formats')
const { compileQueryParameters } = require('./query-parameters')
const { scanJson } = require('./json-scan')
const { isJsonObject } = require('../lib/json-object')

function createStatementValidator ({ maxIriLength, maxJsonDepth, maxStringLength }) {
  // Data 4.2 IRIs, no longer than LRS_MAX_IRI_LENGTH.
  const isIri = (value) => typeof value === 'string' && value.length <= maxIriLength && IRI.test(value)
  const ajv = createAjv({ isIri, maxIriLength })
  const queryAjv = createAjv({ isIri, maxIriLength, coerceTypes: true })
  const compiled = {}
  const actors = {}
  for (const version of ['1.0.3', '2.0.0']) {
    const schema = statementSchema(version)
    compiled[version] = ajv.compile(schema)
    actors[version] = ajv.compile({ $id: `xapi-actor-${version}`, $ref: '#/$defs/actor', $defs: schema.$defs })
  }

  function validateStatement (statement, xapiVersion, where = 'statement') {
    const check = compiled[xapiVersion]
    if (!isJsonObject(statement)) {
      throw errors.InvalidStatement(`${where} must be a JSON object`)
    }
    if (!check(statement)) throw errors.InvalidStatement(describeAjvError(check.errors, where))
    assertStatementRules(statement, xapiVersion)
  }

  // Agent query/document parameters (Communication 2.1.3, 2.3): an Agent or
  // identified Group with exactly one IFI.
  function validateActor (actor, xapiVersion, where) {
    const check = actors[xapiVersion]
    if (!isJsonObject(actor)) throw errors.InvalidParameter(`${where} must be a JSON Agent object`)
    if (!check(actor)) throw errors.InvalidParameter(describeAjvError(check.errors, where))
    try {
      assertActor(actor, where)
    } catch (err) {
      throw errors.InvalidParameter(err.message)
    }
  }

  // An `agent` query parameter: JSON text of an Agent (or identified Group).
  function parseActorParam (text, xapiVersion, where = 'agent') {
    let actor
    try {
      actor = JSON.parse(text)
    } catch {
      throw errors.InvalidParameter(`${where} must be a JSON Agent`)
    }
    scanJson(text, { maxDepth: maxJsonDepth, maxStringLength }) // the limits of a statement
    validateActor(actor, xapiVersion, where)
    return actor
  }

  return {
    validateStatement,
    parseActorParam,
    isIri,
    // A route's query-parameter check, compiled at start (query-parameters.js).
    queryParameters: (schema) => compileQueryParameters(queryAjv, schema)
  }
}

module.exports = { createStatementValidator }
