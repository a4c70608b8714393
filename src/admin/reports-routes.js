'use strict'

// POST /admin/reports/run: a report (src/reports/) over the credential's
// store, answered as JSON ({ columns, rows, ... }) or, with Accept:
// text/csv, as a spreadsheet's CSV. Its own scope, `reports`: a BI tool's
// key reads figures, not statements (scopes.js); a statements/read/mine
// credential's reports count only its own statements.

const { errors } = require('../errors')
const { json, schema, response } = require('../http/openapi-parts')
const { REPORT_SCHEMA, toReport } = require('../reports/report-definition')
const { runReport } = require('../reports/run-report')
const { reportCsv } = require('../reports/report-csv')
const { authorityFor } = require('../auth/authenticate')
const { agentKey } = require('../resources/agents/agent-keys')
const { reportsOnOwnStatements } = require('../auth/scopes')

function reportsRoutes ({ config, storage, validator }) {
  return [{
    method: 'post',
    path: '/reports/run',
    operationId: 'runReport',
    summary: 'Run a report over the store\'s statements',
    description: 'Counts the store\'s statements (voided ones never) that pass `filter`, grouped by up to two dimensions, with the measures asked, or as one of the ready-made shapes (completionFunnel, learnerProgress). ' +
      'Exact: distinct learners are distinct actor identifiers as GET /statements\' agent filter matches them; percentiles are nearest-rank over every value. ' +
      'At most `maxGroups` rows (the answer says `truncated`); within LRS_REPORT_TIMEOUT_MS, else 503 LRS_ERR_REPORT_TIMEOUT saying what would narrow it. ' +
      'Accept: text/csv answers the same table as CSV (RFC 4180, a cell that a spreadsheet would take for a formula neutralised).',
    scope: 'reports',
    body: { kind: 'json', name: 'Report', schema: REPORT_SCHEMA },
    responses: { 200: response('The report\'s table.', { content: { ...json(schema('ReportAnswer')), 'text/csv': { schema: { type: 'string' } } } }) },
    errors: [errors.BadRequest, errors.ReportTimeout],
    async handler (req, res, { body }) {
      const report = toReport(body, { validator })
      const store = req.credential.store || 0
      const authorityKey = reportsOnOwnStatements(req.credential.scopes) ? agentKey(authorityFor(req.credential, config)) : null
      const answer = await runReport(report, { statements: storage.statements, store, authorityKey, timeoutMs: config.reportTimeoutMs })
      req.log.info({ report: { groupBy: report.groupBy, measures: report.measures, shape: report.shape }, statementsRead: answer.statementsRead, tookMs: answer.tookMs }, 'report run')
      if (req.accepts(['application/json', 'text/csv']) === 'text/csv') {
        res.type('text/csv; charset=utf-8; header=present')
        return res.send(reportCsv(answer))
      }
      res.json(answer)
    }
  }]
}

module.exports = { reportsRoutes }
