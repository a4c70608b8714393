'use strict'

// GET /statements: a single statement by id, or a StatementResult page
// sorted by stored (then id) with a `more` cursor (Communication 2.1.3).

const { errors } = require('../../errors')
const { matchFilter, timeFilter } = require('./statement-query')
const { formatStatement } = require('./statement-formats')

const MAX_REFERENCED = 1000
const MAX_REFERENCE_DEPTH = 5

function createStatementReader ({ statements }) {
  async function getOne ({ id, voided }, { authorityKey = null } = {}) {
    const row = await statements.findOne(id, { voided, authorityKey })
    if (!row) throw errors.NotFound(voided ? `no voided statement ${id}` : `no statement ${id}`)
    return row
  }

  // Communication 2.1.4: a statement that targets (StatementRef) a statement
  // matching the filter matches too, and so on down the chain.
  async function selector (q) {
    const match = matchFilter(q)
    if (!Object.keys(match).length) return match
    const referencing = new Set()
    let frontier = await statements.findReferencedIds(match, { limit: MAX_REFERENCED })
    for (let depth = 0; frontier.length && depth < MAX_REFERENCE_DEPTH; depth++) {
      const next = await statements.findIdsReferencing(frontier, { limit: MAX_REFERENCED })
      frontier = next.filter((id) => !referencing.has(id))
      for (const id of frontier) referencing.add(id)
    }
    return referencing.size ? { $or: [match, { _id: { $in: [...referencing] } }] } : match
  }

  async function getPage (q, cursor, { authorityKey = null } = {}) {
    const own = authorityKey ? { voided: false, authorityKey } : { voided: false }
    const parts = [own, await selector(q), timeFilter(q, cursor)].filter((p) => Object.keys(p).length)
    const ors = parts.filter((p) => p.$or).length
    const filter = ors > 1 ? { $and: parts } : Object.assign({}, ...parts)
    const rows = await statements.query(filter, { ascending: q.ascending, limit: q.limit + 1 })
    const hasMore = rows.length > q.limit
    if (hasMore) rows.length = q.limit
    const last = rows[rows.length - 1]
    return { rows, next: hasMore ? { stored: last.stored.getTime(), id: last._id } : null }
  }

  // Newest statements that carry an Activity (for GET /activities).
  async function statementsWithActivity (id, { limit }) {
    return statements.query({ relActivities: id }, { ascending: false, limit })
  }

  return { getOne, getPage, statementsWithActivity }
}

// Statement bodies are stored as JSON text: "exact" pages are concatenated
// without parsing.
function renderStatements (rows, { format, acceptLanguage }) {
  if (format === 'exact') return rows.map((r) => r.body)
  return rows.map((r) => JSON.stringify(formatStatement(JSON.parse(r.body), format, acceptLanguage)))
}

module.exports = { createStatementReader, renderStatements }
