'use strict'

// Communication 2.1.3.s3 (filter conditions for StatementRefs): a statement
// that targets (StatementRef as its object) a statement matching a query's
// filters matches them too, and so down a chain. The engines find such
// statements for GET /statements (`findReferencingIds`); this is the way
// that needs nothing but two look-ups every engine has, from the targets:
// every statement matching the filters that some statement targets, then
// those that target them, then those that target these. Its cost follows
// the store's targeted statements, not the page asked for (an engine may
// do better where it can, storage/sqlite/statements.js).

const { errors } = require('../errors')

const MAX_DEPTH = 5
// Targets looked up for their targeting statements this many at a time
// (one storage call each, the deadline checked between them).
const CHUNK = 1000

// `repository`: { findReferencedIds(q), findIdsReferencing(ids) }. Returns
// the ids of the statements that match `q` through StatementRefs (some may
// also match it themselves). Every target counts, however many: a capped
// list (it was 1,000) silently lost the rest's statements from a popular
// verb's or activity's pages. Past `deadline` (ms): QueryTimeout.
async function referencingThroughTargets (repository, q, { deadline = Infinity } = {}) {
  const referencing = new Set()
  let frontier = await repository.findReferencedIds(q)
  for (let depth = 0; frontier.length && depth < MAX_DEPTH; depth++) {
    const next = []
    for (let i = 0; i < frontier.length; i += CHUNK) {
      if (Date.now() > deadline) throw errors.QueryTimeout()
      for (const id of await repository.findIdsReferencing(frontier.slice(i, i + CHUNK))) {
        if (!referencing.has(id)) next.push(id)
        referencing.add(id)
      }
    }
    frontier = next
  }
  return [...referencing]
}

module.exports = { referencingThroughTargets, MAX_DEPTH }
