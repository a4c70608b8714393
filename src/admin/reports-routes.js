'use strict'

// POST /admin/reports/run: a report (src/reports/) over the credential's
// store, answered as JSON ({ columns, rows, ... }) or, with Accept:
// text/csv, as a spreadsheet's CSV. Saved reports: /admin/reports (list,
// create), /admin/reports/{id} (read, change with If-Match, remove),
// POST /admin/reports/{id}/run. Their own scope, `reports`: a BI tool's
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
const crypto = require('node:crypto')

const SAVED_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'report'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'What it is called in the console and in lists.' },
    report: REPORT_SCHEMA
  }
}
const MAX_SAVED = 200 // per store
const idParam = { id: { schema: { type: 'string', maxLength: 64 }, description: 'The saved report\'s id.' } }
const etagOf = (r) => `"r${r.revision}"`
const shown = (r) => ({ id: r.id, name: r.name, report: r.definition, revision: r.revision, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString() })

function reportsRoutes ({ config, storage, validator }) {
  // runs `body` (a report as declared) for the request's credential, answered as it asks
  async function runFor (req, res, body) {
    const report = toReport(body, { validator })
    const store = req.credential.store || 0
    const authorityKey = reportsOnOwnStatements(req.credential.scopes) ? agentKey(authorityFor(req.credential, config)) : null
    const answer = await runReport(report, { statements: storage.statements, counts: storage.reportCounts, store, authorityKey, timeoutMs: config.reportTimeoutMs })
    req.log.info({ report: { groupBy: report.groupBy, measures: report.measures, shape: report.shape }, statementsRead: answer.statementsRead, tookMs: answer.tookMs }, 'report run')
    if (req.accepts(['application/json', 'text/csv']) === 'text/csv') {
      res.type('text/csv; charset=utf-8; header=present')
      return res.send(reportCsv(answer))
    }
    res.json(answer)
  }
  const storeOf = (req) => req.credential.store || 0
  async function saved (req) {
    const found = await storage.savedReports.get({ id: req.params.id, store: storeOf(req) })
    if (!found) throw errors.NotFound(`no saved report "${req.params.id}" in this store`)
    return found
  }
  const answerSaved = (res, r, status = 200) => res.status(status).setHeader('ETag', etagOf(r)).json(shown(r))
  const RUN_ANSWER = response('The report\'s table.', { content: { ...json(schema('ReportAnswer')), 'text/csv': { schema: { type: 'string' } } } })

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
    responses: { 200: RUN_ANSWER },
    errors: [errors.BadRequest, errors.ReportTimeout],
    async handler (req, res, { body }) {
      await runFor(req, res, body)
    }
  }, {
    method: 'get',
    path: '/reports',
    operationId: 'listSavedReports',
    summary: 'The store\'s saved reports',
    scope: 'reports',
    responses: { 200: response('Its saved reports, by name.', { content: json({ type: 'object', properties: { reports: { type: 'array', items: schema('SavedReport') } } }) }) },
    async handler (req, res) {
      res.json({ reports: (await storage.savedReports.list({ store: storeOf(req) })).map(shown) })
    }
  }, {
    method: 'post',
    path: '/reports',
    operationId: 'createSavedReport',
    summary: 'Save a report',
    description: 'A report (as POST /admin/reports/run takes it) under a name, checked as if it were run. At most 200 per store.',
    scope: 'reports',
    body: { kind: 'json', name: 'SavedReportRequest', schema: SAVED_BODY },
    responses: { 201: response('Saved.', { content: json(schema('SavedReport')) }) },
    errors: [errors.BadRequest],
    async handler (req, res, { body }) {
      toReport(body.report, { validator }) // what a run would refuse is refused now
      const store = storeOf(req)
      if ((await storage.savedReports.list({ store })).length >= MAX_SAVED) throw errors.BadRequest(`a store keeps at most ${MAX_SAVED} saved reports: remove one first`)
      const id = crypto.randomUUID()
      if (!await storage.savedReports.create({ id, store, name: body.name, definition: body.report })) throw errors.NotFound('this credential\'s store is gone')
      req.log.info({ audit: 'report-saved', id }, 'report saved')
      answerSaved(res, await storage.savedReports.get({ id, store }), 201)
    }
  }, {
    method: 'get',
    path: '/reports/:id',
    operationId: 'getSavedReport',
    summary: 'One saved report',
    scope: 'reports',
    params: idParam,
    responses: { 200: response('The saved report.', { content: json(schema('SavedReport')) }) },
    errors: [errors.NotFound],
    async handler (req, res) {
      answerSaved(res, await saved(req))
    }
  }, {
    method: 'put',
    path: '/reports/:id',
    operationId: 'changeSavedReport',
    summary: 'Change a saved report',
    description: 'Its name and report, whole. With If-Match (its ETag) the change is made only if nobody changed it since (412 otherwise).',
    scope: 'reports',
    params: idParam,
    body: { kind: 'json', name: 'SavedReportRequest', schema: SAVED_BODY },
    responses: { 200: response('Changed.', { content: json(schema('SavedReport')) }) },
    errors: [errors.NotFound, errors.BadRequest, errors.PreconditionFailed],
    async handler (req, res, { body }) {
      const found = await saved(req)
      const ifMatch = req.get('If-Match')
      if (ifMatch && ifMatch !== '*' && !ifMatch.split(',').map((t) => t.trim()).includes(etagOf(found))) throw errors.PreconditionFailed('the saved report was changed since that ETag: read it again')
      toReport(body.report, { validator })
      const outcome = await storage.savedReports.replace({ id: found.id, store: found.store, revision: found.revision, name: body.name, definition: body.report })
      if (outcome === 'missing') throw errors.NotFound(`no saved report "${found.id}" in this store`)
      if (outcome === 'moved') throw errors.PreconditionFailed('the saved report was changed meanwhile: read it again')
      req.log.info({ audit: 'report-changed', id: found.id }, 'saved report changed')
      answerSaved(res, await saved(req))
    }
  }, {
    method: 'delete',
    path: '/reports/:id',
    operationId: 'deleteSavedReport',
    summary: 'Remove a saved report',
    scope: 'reports',
    params: idParam,
    responses: { 204: response('Removed.') },
    errors: [errors.NotFound],
    async handler (req, res) {
      const found = await saved(req)
      await storage.savedReports.remove({ id: found.id, store: found.store })
      req.log.info({ audit: 'report-removed', id: found.id }, 'saved report removed')
      res.status(204).end()
    }
  }, {
    method: 'post',
    path: '/reports/:id/run',
    operationId: 'runSavedReport',
    summary: 'Run a saved report',
    description: 'As POST /admin/reports/run with its report: JSON, or CSV with Accept: text/csv.',
    scope: 'reports',
    params: idParam,
    responses: { 200: RUN_ANSWER },
    errors: [errors.NotFound, errors.ReportTimeout],
    async handler (req, res) {
      await runFor(req, res, (await saved(req)).definition)
    }
  }]
}

module.exports = { reportsRoutes }
