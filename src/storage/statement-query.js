'use strict'

// The statement query every engine serves, as plain values (the port's
// contract; GET /statements builds it, each engine translates it):
//   agent, verb, activity, registration   string or null (agent: an IFI key)
//   relatedAgents, relatedActivities      booleans
//   since (exclusive), until (inclusive)  Date or null, on `stored`
//   ascending                             sort direction of (stored, id)
//   after                                 { stored: Date, position } keyset position (the
//                                         `position` of the last row served), or null
//   authorityKey                          only statements stored with this authority
//   orIds                                 ids that match besides the filters (Communication 2.1.4)
//   limit                                 rows to return
//   store                                 the store's number (0: the default store); orIds
//                                         come qualified with it (src/stores/store-keys.js)
// Values are checked here once more, so nothing but a literal of the
// expected type can reach an engine's filter, whatever the caller did.

const STRINGS = ['agent', 'verb', 'activity', 'registration', 'authorityKey']
const BOOLEANS = ['relatedAgents', 'relatedActivities', 'ascending']

function fail (name) {
  throw new TypeError(`statement query: ${name} has the wrong type`)
}

function isDate (value) {
  return value instanceof Date && !Number.isNaN(value.getTime())
}

function statementQuery (fields) {
  const q = {}
  for (const name of STRINGS) {
    const v = fields[name]
    if (v !== undefined && v !== null && typeof v !== 'string') fail(name)
    q[name] = v || null
  }
  for (const name of BOOLEANS) {
    const v = fields[name] === undefined ? false : fields[name]
    if (typeof v !== 'boolean') fail(name)
    q[name] = v
  }
  for (const name of ['since', 'until']) {
    const v = fields[name]
    if (v !== undefined && v !== null && !isDate(v)) fail(name)
    q[name] = v || null
  }
  const after = fields.after || null
  if (after && (!isDate(after.stored) || typeof after.position !== 'string')) fail('after')
  q.after = after && { stored: after.stored, position: after.position }
  const orIds = fields.orIds || []
  if (!Array.isArray(orIds) || orIds.some((id) => typeof id !== 'string')) fail('orIds')
  q.orIds = orIds
  const store = fields.store === undefined ? 0 : fields.store
  if (!Number.isInteger(store) || store < 0) fail('store')
  q.store = store
  if (!Number.isInteger(fields.limit) || fields.limit < 1) fail('limit')
  q.limit = fields.limit
  return Object.freeze(q)
}

module.exports = { statementQuery }
