'use strict'

// GET /statements: a single statement by id, or a StatementResult page
// sorted by stored (then id) with a `more` cursor (Communication 2.1.3).

const { errors } = require('../../errors')
const { statementQuery } = require('../../storage/statement-query')
const { formatStatement } = require('./statement-formats')
const { withStored } = require('./statement-record')
const { queryShape } = require('../../metrics/instruments')
const { qualify, storageQueryFields } = require('../../stores/store-keys')

const MAX_REFERENCED = 1000
const MAX_REFERENCE_DEPTH = 5

function hasFilter (q) {
  return Boolean(q.agent || q.verb || q.activity || q.registration)
}

// `queryTimeoutMs` bounds a whole page (every storage call it takes), on
// top of each engine's own per-query limit: past it, QueryTimeout (504).
function createStatementReader ({ statements, queryTimeoutMs, instruments, hooks = {} }) {
  function checkDeadline (deadline) {
    if (Date.now() > deadline) throw errors.QueryTimeout()
  }

  // `store`: the credential's (store-keys.js); every lookup stays in it.
  async function getOne ({ id, voided }, { authorityKey = null, store }) {
    const row = await statements.findOne(qualify(store, id), { voided, authorityKey })
    if (!row) throw errors.NotFound(voided ? `no voided statement ${id}` : `no statement ${id}`)
    return row
  }

  // Communication 2.1.4: a statement that targets (StatementRef) a statement
  // matching the filters matches too, and so on down the chain.
  async function referencingIds (q, deadline) {
    if (!hasFilter(q)) return []
    const referencing = new Set()
    let frontier = await statements.findReferencedIds(q, { limit: MAX_REFERENCED })
    for (let depth = 0; frontier.length && depth < MAX_REFERENCE_DEPTH; depth++) {
      checkDeadline(deadline)
      const next = await statements.findIdsReferencing(frontier, { limit: MAX_REFERENCED })
      frontier = next.filter((id) => !referencing.has(id))
      for (const id of frontier) referencing.add(id)
    }
    return [...referencing]
  }

  // `params`: the parsed query parameters; `after`: the keyset position of
  // the previous page, if any.
  async function getPage (params, after, { authorityKey = null, store }) {
    const deadline = Date.now() + queryTimeoutMs
    const filters = statementQuery(storageQueryFields({ ...params, after, authorityKey, limit: params.limit }, store))
    const orIds = await referencingIds(filters, deadline)
    if (hooks.beforeQuery) await hooks.beforeQuery()
    checkDeadline(deadline)
    const start = process.hrtime.bigint()
    const rows = await statements.query(statementQuery({ ...filters, orIds, limit: params.limit + 1 }), { deadline })
    instruments.querySeconds.observe({ shape: queryShape(params) }, Number(process.hrtime.bigint() - start) / 1e9)
    const hasMore = rows.length > params.limit
    if (hasMore) rows.length = params.limit
    const last = rows[rows.length - 1]
    return { rows, next: hasMore ? { stored: last.stored, position: last.position } : null }
  }

  // Newest statements that carry an Activity (for GET /activities).
  async function statementsWithActivity (activity, { limit, store }) {
    return statements.query(statementQuery(storageQueryFields({ activity, relatedActivities: true, limit }, store)))
  }

  return { getOne, getPage, statementsWithActivity }
}

// Rows as statement JSON texts: "exact" pages are concatenated without parsing.
function renderStatements (rows, { format, acceptLanguage }) {
  if (format === 'exact') return rows.map(withStored)
  return rows.map((r) => JSON.stringify(formatStatement(JSON.parse(withStored(r)), format, acceptLanguage)))
}

module.exports = { createStatementReader, renderStatements }
