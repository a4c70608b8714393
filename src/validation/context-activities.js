'use strict'

// Data 2.4.6.2: each list of context activities (parent, grouping,
// category, other) is an array, or, as 1.0.3 allows on input, a single
// Activity object. This is the one place that knows it.

function forEachContextActivity (contextActivities, fn) {
  if (!contextActivities) return
  for (const key of Object.keys(contextActivities)) {
    const list = contextActivities[key]
    for (const activity of Array.isArray(list) ? list : [list]) fn(activity, key)
  }
}

// The lists as arrays (Data 2.4.6.2.s4.b3: returned as arrays), each
// activity passed through `fn`.
function mapContextActivities (contextActivities, fn = (a) => a) {
  const out = {}
  for (const [key, list] of Object.entries(contextActivities)) out[key] = (Array.isArray(list) ? list : [list]).map(fn)
  return out
}

function contextActivitiesAreArrays (context) {
  const ca = context && context.contextActivities
  if (!ca) return true
  for (const key in ca) if (!Array.isArray(ca[key])) return false
  return true
}

module.exports = { forEachContextActivity, mapContextActivities, contextActivitiesAreArrays }
