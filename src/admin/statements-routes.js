'use strict'

// GET /admin/statements/export?since=&until=: every statement as NDJSON
// (export-statements.js), streamed with backpressure.

const { parameter: p } = require('../validation/query-parameters')
const { toUtcTimestamp } = require('../validation/formats')
const { exportStatements } = require('../transfer/export-statements')
const { response } = require('../http/openapi-parts')

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

  return [{
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
