'use strict'

// Translates the engine-neutral statement query (src/storage/statement-query.js)
// into a MongoDB filter. Every value is a literal the query checked.

const { qualify } = require('../../stores/store-keys')

// A statement of a store but the default one keeps its query fields
// qualified with its store (src/stores/store-keys.js), so the indexes on
// them serve each store apart; the default store's are as before stores.
function matchFilter (q) {
  const filter = {}
  const v = (value) => qualify(q.store, value)
  if (q.agent) filter[q.relatedAgents ? 'relAgents' : 'agents'] = v(q.agent)
  if (q.verb) filter.verb = v(q.verb)
  if (q.activity) filter[q.relatedActivities ? 'relActivities' : 'activities'] = v(q.activity)
  if (q.registration) filter.registration = v(q.registration)
  return filter
}

// A store's statements: those of the default store have no `store` field
// (none had before stores).
function storeFilter (store) {
  return store ? { store } : { store: { $exists: false } }
}

function statementFilter (q) {
  const filter = { voided: false, ...storeFilter(q.store) }
  if (q.authorityKey) filter.authorityKey = qualify(q.store, q.authorityKey)
  const and = []
  const match = matchFilter(q)
  if (q.orIds.length) and.push({ $or: [match, { _id: { $in: q.orIds } }] })
  else Object.assign(filter, match)
  const stored = {}
  if (q.since) stored.$gt = q.since
  if (q.until) stored.$lte = q.until
  if (Object.keys(stored).length) filter.stored = stored
  if (q.after) {
    // Continue exactly after the last statement of the previous page:
    // (stored, _id) strictly beyond it in the sort direction.
    const op = q.ascending ? '$gt' : '$lt'
    and.push({ $or: [{ stored: { [op]: q.after.stored } }, { stored: q.after.stored, _id: { [op]: q.after.position } }] })
  }
  if (and.length) filter.$and = and
  return filter
}

module.exports = { statementFilter, matchFilter, storeFilter }
