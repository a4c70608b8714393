'use strict'

// GET /admin/statements/export?since=&until=: every statement as NDJSON
// (export-statements.js), or with format=csv as a CSV file for
// spreadsheets (statement-csv.js), streamed with backpressure. POST
// /admin/statements/import: such NDJSON stored back (import-statements.js),
// read as it arrives.
// DELETE /admin/statements?since=&until=: the statements stored in the
// range, with those that go with them (delete-statements.js); GET
// /admin/statements/deletion?since=&until=: what it would remove.

const { parameter: p } = require('../validation/query-parameters')
const { toUtcTimestamp } = require('../validation/formats')
const { exportStatements } = require('../transfer/export-statements')
const { exportCsv, parseFields, DEFAULT_FIELDS, FIELDS, MAX_FIELDS } = require('../transfer/statement-csv')
const { storeDirectory } = require('../stores/store-directory')
const { response, json, schema } = require('../http/openapi-parts')
const { deleteStatements, previewDeletion } = require('./delete-statements')
const { importItems, itemLimit } = require('../transfer/import-statements')
const { ndjsonStreamItems } = require('../transfer/statement-file')
const { parseMediaType } = require('../http/media-type')
const { authorityFor } = require('../auth/authenticate')
const { errors } = require('../errors')

// The rejected statements an import's answer lists (it counts them all).
const LISTED_REJECTS = 100
const NDJSON = new Set(['application/x-ndjson', 'application/jsonl', 'application/json-lines'])

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

// The parameters of the export that only a CSV file takes.
const CSV_ONLY = ['fields', 'lang', 'bom', 'voided']

function statementsRoutes ({ storage, logger, validator, config, instruments }) {
  const directory = storeDirectory(storage)
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
    summary: 'Export statements as NDJSON, or as CSV for spreadsheets',
    description: 'Every statement of the credential\'s store stored in the range, streamed. ' +
      'NDJSON (the default): voided ones included, one JSON statement (with `stored` and `authority`) per line, what POST /admin/statements/import reads back. ' +
      '`format=csv`: one row per statement with the columns `fields` names, after a header row of those names (RFC 4180: CRLF line ends, quoted cells, UTF-8), voided statements left out unless `voided=include`; ' +
      'a text cell starting with =, +, -, @, a tab or CR gets a single quote (\') before it, so a spreadsheet shows it rather than running it as a formula (numbers of the statement, such as scores, are written as they are). ' +
      'A failure after the first line cuts the stream short.',
    query: {
      since: { schema: p.timestamp, description: 'Only statements stored after this instant.' },
      until: { schema: p.timestamp, description: 'Only statements stored at or before this instant.' },
      format: { schema: { enum: ['ndjson', 'csv'], description: 'ndjson or csv' }, default: 'ndjson', description: '`ndjson`: every statement as it is stored (a backup); `csv`: a flattened row per statement for spreadsheets.' },
      fields: {
        schema: p.string,
        default: DEFAULT_FIELDS.join(','),
        description: `CSV only: the columns, in order, comma-separated (at most ${MAX_FIELDS}): ${Object.keys(FIELDS).join(', ')}, or \`ext:<IRI>\` for an extension of the context (else of the result), written as JSON when it is not a string, number or boolean. ` +
          '`actor` and `object` are identifiers (mbox, mbox_sha1sum, openid, or an account as homePage|name; an object\'s activity or StatementRef id); `verb_display` and `object_name` are in the language `lang` asks for.'
      },
      lang: { schema: p.name, description: 'CSV only: the language of `verb_display` and `object_name` (a tag such as en-US, or a list as Accept-Language writes it), chosen as GET /statements?format=canonical chooses; else the first language of each.' },
      voided: { schema: { enum: ['exclude', 'include'], description: 'exclude or include' }, default: 'exclude', description: 'CSV only: leave voided statements out (the default: a spreadsheet counting completions must not count voided ones) or include them (the `voided` field says which they are). The NDJSON export always has them.' },
      bom: { schema: p.boolean, default: false, description: 'CSV only: start the file with a UTF-8 byte order mark, which Excel needs to read anything but ASCII right.' }
    },
    responses: {
      200: response('The statements.', {
        content: {
          'application/x-ndjson': { schema: { type: 'string' } },
          'text/csv': { schema: { type: 'string' } }
        },
        headers: { 'Content-Disposition': { description: 'With format=csv: attachment; filename="statements-<store>-<date>.csv".', schema: { type: 'string' } } }
      })
    },
    async handler (req, res, { query }) {
      const range = { since: asDate(query.since), until: asDate(query.until), store: req.credential.store || 0 } // the credential's store
      const csv = query.format === 'csv'
      if (!csv) for (const name of CSV_ONLY) if (query[name] !== undefined) throw errors.InvalidParameter(`${name} applies to format=csv only (the NDJSON export is every statement as it is stored)`)
      const chunks = csv
        ? exportCsv(storage.statements, { ...range, fields: parseFields(query.fields, validator), lang: query.lang, voided: query.voided || 'exclude', bom: query.bom === true })
        : exportStatements(storage.statements, range)
      // the file a browser saves it as: statements-<store id>-<UTC date>.csv
      const filename = csv && `statements-${(await directory.ids()).get(range.store) || range.store}-${new Date().toISOString().slice(0, 10)}.csv`
      // The first page is read before the status is sent, so a failing
      // store still gets a proper error answer.
      const first = await chunks.next()
      if (csv) {
        res.status(200).set('Content-Type', 'text/csv; charset=utf-8; header=present')
        res.set('Content-Disposition', `attachment; filename="${filename}"`)
      } else {
        res.status(200).type('application/x-ndjson; charset=utf-8')
      }
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
      } finally {
        await chunks.return() // a client gone before the end: what the export holds is let go
      }
    }
  }, {
    method: 'post',
    path: '/statements/import',
    operationId: 'importStatements',
    summary: 'Import statements from NDJSON',
    description: 'Stores the statements of an NDJSON body (one statement a line, as GET /admin/statements/export writes) in the credential\'s store, keeping their ids, `stored` and `authority` ' +
      '(a statement without `authority` gets the calling credential\'s, as a POST would; without `stored`, the time of the import), read as the body arrives. Each statement is validated as a POST\'s is, and needs an id. ' +
      'Idempotent: a statement whose id the store holds is left as it is (counted as `existing`; rejected when the stored one differs), so a cut-short import is sent again whole. ' +
      'Unlike a POST it is not all or nothing: the statements that can be stored are, and the answer counts and lists those rejected, with their line. Imported statements are not forwarded. ' +
      'The whole body must arrive within the server\'s request timeout (5 minutes): split larger files, or use `lrs import` beside the LRS.',
    body: { kind: 'raw', required: true, description: 'NDJSON: one statement a line.', content: { 'application/x-ndjson': { schema: { type: 'string' } } } },
    responses: { 200: response('What was stored and what was not.', { content: json(schema('StatementImport')) }) },
    errors: [errors.UnsupportedMediaType],
    async handler (req, res) {
      if (!NDJSON.has(parseMediaType(req.headers['content-type']).type)) throw errors.UnsupportedMediaType('send NDJSON, one statement a line, with Content-Type: application/x-ndjson')
      const store = req.credential.store || 0
      const limits = { maxDepth: config.maxJsonDepth, maxStringLength: config.maxStringLength, maxStatementBytes: config.maxStatementBytes }
      const rejects = []
      const started = Date.now()
      let counts
      try {
        counts = await importItems(ndjsonStreamItems(req, { maxItemBytes: itemLimit(limits) }), {
          storage,
          validator,
          importAuthority: authorityFor(req.credential, config),
          limits,
          store,
          onReject: ({ line, reason }) => { if (rejects.length < LISTED_REJECTS) rejects.push({ line, reason }) }
        })
      } catch (err) {
        // the client went away: what was stored stays, and a second import stores the rest
        if (!req.readableAborted && err.code !== 'ECONNRESET') throw err
        req.log.info({ audit: 'statements-import-cut', ms: Date.now() - started }, 'statement import cut short by the client')
        return
      }
      if (counts.stored) {
        instruments.statementsStored.inc(counts.stored)
        instruments.countStored(store, counts.stored)
      }
      req.log.info({ audit: 'statements-imported', stored: counts.stored, existing: counts.existing, rejected: counts.rejected, ms: Date.now() - started }, 'statements imported')
      res.json({ stored: counts.stored, existing: counts.existing, rejected: counts.rejected, rejects })
    }
  }]
}

module.exports = { statementsRoutes }
