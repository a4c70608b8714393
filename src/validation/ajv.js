'use strict'

// One ajv instance, schemas compiled once at start. Body schemas are
// strict (no coercion, no defaults); allErrors stays off on the hot path.
const Ajv = require('ajv')
const f = require('./formats')

// `isIri`: the IRI check, with the configured length limit (`maxIriLength`,
// which mbox values keep too). `coerceTypes`:
// only for query parameters (they arrive as strings); bodies never.
function createAjv ({ isIri, maxIriLength, coerceTypes = false }) {
  const ajv = new Ajv({ allErrors: false, coerceTypes, verbose: coerceTypes, useDefaults: false, strict: true, strictTypes: false, strictTuples: false, allowUnionTypes: true })
  ajv.addFormat('iri', { validate: isIri })
  ajv.addFormat('uuid', f.UUID)
  ajv.addFormat('duration', f.DURATION)
  ajv.addFormat('timestamp', { validate: f.isValidTimestamp })
  ajv.addFormat('language-tag', f.LANGUAGE_TAG)
  ajv.addFormat('mbox', { validate: (value) => value.length <= maxIriLength && f.MBOX.test(value) }) // a mailto IRI: the IRI length limit too
  ajv.addFormat('sha1', f.SHA1_HEX)
  ajv.addFormat('sha2', f.SHA2_HEX)
  return ajv
}

// "/context/instructor must have required property 'id'" style messages.
function describeAjvError (errors, root) {
  const e = errors && errors[0]
  if (!e) return 'invalid'
  const where = root + (e.instancePath || '')
  if (e.keyword === 'additionalProperties') return `${where} has an unknown property "${e.params.additionalProperty}"`
  if (e.keyword === 'format') return `${where} is not a valid ${e.params.format}`
  if (e.keyword === 'propertyNames') return `${where} has a key "${e.params.propertyName}" that is not valid here`
  if (e.keyword === 'const' || e.keyword === 'enum') return `${where} must be one of ${JSON.stringify(e.params.allowedValue !== undefined ? [e.params.allowedValue] : e.params.allowedValues)}`
  return `${where} ${e.message}`
}

module.exports = { createAjv, describeAjvError }
