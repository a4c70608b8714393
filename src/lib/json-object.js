'use strict'

// A JSON object ({...}): what statements, agents, signature headers,
// mergeable documents and admin bodies must be. JSON.parse gives null,
// arrays and scalars as well.
function isJsonObject (value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

module.exports = { isJsonObject }
