'use strict'

// GET /statements: a single statement by id, or a StatementResult page
// sorted by stored (then id) with a `more` cursor (Communication 2.1.3).

const { errors } = require('../../errors')
const { statementQuery } = require('../../storage/statement-query')
const { formatStatement } = require('./statement-formats')
const { withStored } = require('./statement-record')
const { queryShape } = require('../../metrics/instruments')
const { qualify, storageQueryFields } = require('../../stores/store-keys')

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

  // `params`: the parsed query parameters; `after`: the keyset position of
  // the previous page, if any.
  async function getPage (params, after, { authorityKey = null, store }) {
    const deadline = Date.now() + queryTimeoutMs
    const filters = statementQuery(storageQueryFields({ ...params, after, authorityKey, limit: params.limit + 1 }, store))
    if (hooks.beforeQuery) await hooks.beforeQuery()
    checkDeadline(deadline)
    const start = process.hrtime.bigint()
    let rows = await statements.query(filters, { deadline })
    // Communication 2.1.3.s3: statements that target (StatementRef) one
    // matching the filters match too. One can be on this page only if it
    // lies between where the page starts and the page's last row of its
    // own matches plus one (`beyond`, when there are that many).
    if (hasFilter(filters)) {
      const beyond = rows.length > params.limit ? rows[params.limit].position : null
      const orIds = await statements.findReferencingIds(filters, { beyond, deadline })
      checkDeadline(deadline)
      if (orIds.length) rows = await statements.query(statementQuery({ ...filters, orIds }), { deadline })
    }
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

  // The statement with `id` in the store whether voided or not, or null
  // (the live feed follows a StatementRef to see whether its target matches).
  async function findTarget (id, { store }) {
    return (await statements.findOne(qualify(store, id), { voided: false })) || statements.findOne(qualify(store, id), { voided: true })
  }

  return { getOne, getPage, statementsWithActivity, findTarget, order: statements.order }
}

// Rows as statement JSON texts: "exact" pages are concatenated without parsing.
function renderStatements (rows, { format, acceptLanguage }) {
  if (format === 'exact') return rows.map(withStored)
  return rows.map((r) => JSON.stringify(formatStatement(JSON.parse(withStored(r)), format, acceptLanguage)))
}

module.exports = { createStatementReader, renderStatements }
