'use strict'

// Translates the engine-neutral statement query (src/storage/statement-query.js)
// into a MongoDB filter. Every value is a literal the query checked.

function matchFilter (q) {
  const filter = {}
  if (q.agent) filter[q.relatedAgents ? 'relAgents' : 'agents'] = q.agent
  if (q.verb) filter.verb = q.verb
  if (q.activity) filter[q.relatedActivities ? 'relActivities' : 'activities'] = q.activity
  if (q.registration) filter.registration = q.registration
  return filter
}

function statementFilter (q) {
  const filter = { voided: false }
  if (q.authorityKey) filter.authorityKey = q.authorityKey
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

module.exports = { statementFilter, matchFilter }
