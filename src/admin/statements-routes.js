'use strict'

// GET /admin/statements/export?since=&until=: every statement as NDJSON
// (export-statements.js), streamed with backpressure.
// DELETE /admin/statements?since=&until=: the statements stored in the
// range, with those that go with them (delete-statements.js); GET
// /admin/statements/deletion?since=&until=: what it would remove.

const { parameter: p } = require('../validation/query-parameters')
const { toUtcTimestamp } = require('../validation/formats')
const { exportStatements } = require('../transfer/export-statements')
const { response, json, schema } = require('../http/openapi-parts')
const { deleteStatements, previewDeletion } = require('./delete-statements')
const { errors } = require('../errors')

const RANGE = {
  since: { schema: p.timestamp, description: 'Only statements stored after this instant (none: from the first).' },
  until: { schema: p.timestamp, required: true, description: 'Only statements stored at or before this instant.' }
}

// Until the response can take more, or is closed; leaves no listener
// behind (events.once for each would leave the other one's on the
// response, one more per page of a long export).
function drainedOrClosed (res) {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}

function statementsRoutes ({ storage, logger }) {
  const asDate = (value) => (value === undefined ? null : new Date(Date.parse(toUtcTimestamp(value))))

  // the checked range in the credential's store; until not before since
  const rangeOf = (req, query) => {
    const range = { since: asDate(query.since), until: asDate(query.until), store: req.credential.store || 0 }
    if (range.since && range.since > range.until) throw errors.InvalidParameter('since is after until')
    return range
  }
  const shown = (range) => ({ since: range.since && range.since.toISOString(), until: range.until.toISOString() })

  return [{
    method: 'get',
    path: '/statements/deletion',
    operationId: 'previewStatementDeletion',
    summary: 'What deleting statements by stored time would remove (removes nothing)',
    description: 'The statements of the credential\'s store stored in the range, and those outside it that would go with them.',
    query: RANGE,
    responses: { 200: response('What the deletion would remove.', { content: json(schema('StatementDeletionPreview')) }) },
    async handler (req, res, { query }) {
      const range = rangeOf(req, query)
      res.json({ range: shown(range), ...await previewDeletion(storage, range) })
    }
  }, {
    method: 'delete',
    path: '/statements',
    operationId: 'deleteStatements',
    summary: 'Delete statements by stored time',
    description: 'Removes the statements of the credential\'s store stored after `since` and at or before `until`, voided ones included, with the voiding statements of voided ones and the targets of voiding ones wherever those were stored, ' +
      'attachments no other statement uses and the statements\' forwarding entries. Cannot be undone: GET /admin/statements/deletion shows what would go. The audit log has the range and the counts.',
    query: RANGE,
    responses: { 200: response('What was removed.', { content: json(schema('StatementDeletion')) }) },
    async handler (req, res, { query }) {
      const range = rangeOf(req, query)
      const { removed } = await deleteStatements(storage, range)
      req.log.info({ audit: 'statements-deleted', range: shown(range), removed }, 'statements deleted by stored time')
      res.json({ range: shown(range), removed })
    }
  }, {
    method: 'get',
    path: '/statements/export',
    operationId: 'exportStatements',
    summary: 'Export statements as NDJSON',
    description: 'Every statement of the credential\'s store stored in the range, voided ones included, one JSON statement (with `stored` and `authority`) per line, streamed. ' +
      'A failure after the first line cuts the stream short.',
    query: {
      since: { schema: p.timestamp, description: 'Only statements stored after this instant.' },
      until: { schema: p.timestamp, description: 'Only statements stored at or before this instant.' }
    },
    responses: { 200: response('The statements.', { content: { 'application/x-ndjson': { schema: { type: 'string' } } } }) },
    async handler (req, res, { query }) {
      const range = { since: asDate(query.since), until: asDate(query.until), store: req.credential.store || 0 } // the credential's store
      const chunks = exportStatements(storage.statements, range)
      // The first page is read before the status is sent, so a failing
      // store still gets a proper error answer.
      const first = await chunks.next()
      res.status(200).type('application/x-ndjson; charset=utf-8')
      let closed = false
      res.on('close', () => { closed = true })
      try {
        for (let next = first; !next.done && !closed; next = await chunks.next()) {
          if (!res.write(next.value)) await drainedOrClosed(res)
        }
        res.end()
      } catch (err) {
        // Headers are gone: all that is left is to cut the stream short, so
        // the client sees an incomplete export rather than a complete one.
        logger.error({ err, reqId: req.id }, 'export failed')
        res.destroy(err)
      }
    }
  }]
}

module.exports = { statementsRoutes }
