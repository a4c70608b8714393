'use strict'

// GET /admin/statements/export?format=csv: what a spreadsheet user opens.
// The file is read with an RFC 4180 parser (below), and the checks are on
// what it gives: the header, a row per statement of the credential's store
// only, displays in the language asked for, text that round-trips whatever
// it holds, formulas neutralised, extension columns, voided statements left
// out unless asked for, and a JSON 400 naming a wrong field.

const test = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { storeWithAdmin, postStatements } = require('../helpers/stores')
const { DEFAULT_FIELDS } = require('../../src/transfer/statement-csv')

// RFC 4180: records end with CRLF; a field is quoted when it holds a comma,
// a quote, CR or LF, and a quote inside is doubled. Strict: a bare LF
// outside quotes, or a quote inside an unquoted field, fails the test.
function parseCsv (text) {
  const records = []
  let record = []
  let i = 0
  for (;;) {
    let field = ''
    if (text[i] === '"') {
      i++
      for (;;) {
        const q = text.indexOf('"', i)
        assert.notEqual(q, -1, 'a quoted field is closed')
        field += text.slice(i, q)
        i = q + 1
        if (text[i] !== '"') break
        field += '"'
        i++
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        assert.notEqual(text[i], '"', 'a quote only in a quoted field')
        field += text[i++]
      }
    }
    record.push(field)
    if (text[i] === ',') { i++; continue }
    assert.equal(text.slice(i, i + 2), '\r\n', `a record ends with CRLF (at ${i})`)
    i += 2
    records.push(record)
    record = []
    if (i >= text.length) return records
  }
}

// The file as objects by header name, and what came with it.
async function exportCsv (client, query = '') {
  const res = await client(`/admin/statements/export?format=csv${query}`)
  assert.equal(res.status, 200, res.text)
  const [header, ...rows] = parseCsv(res.text)
  for (const r of rows) assert.equal(r.length, header.length, 'every row has a cell per column')
  return { res, header, rows: rows.map((r) => Object.fromEntries(header.map((h, k) => [h, r[k]]))) }
}

const EXT = {
  session: 'http://example.com/xapi/extensions/session',
  detail: 'http://example.com/xapi/extensions/detail',
  attempt: 'http://example.com/xapi/extensions/attempt'
}

test('a CSV export is what a spreadsheet user expects: header, a row per statement, language, quoting, formulas neutralised, extensions', async () => {
  const lrs = await startLrs()
  const registration = crypto.randomUUID()
  const tricky = 'Doe, "Jane"\r\nJr. — élève'
  const full = statement({
    id: crypto.randomUUID(),
    actor: { objectType: 'Agent', name: tricky, mbox: 'mailto:jane@example.com' },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed', 'fr-FR': 'terminé', de: 'abgeschlossen' } },
    object: { id: 'http://example.com/courses/c1', definition: { name: { 'en-US': '=HYPERLINK("http://evil.example.com")', 'fr-CA': 'Cours, un' } } },
    result: {
      success: true,
      completion: true,
      score: { scaled: -0.5, raw: -3, min: -10, max: 10 },
      response: '@SUM(A1:A9)',
      duration: 'PT1M30S',
      extensions: { [EXT.attempt]: 2, [EXT.session]: 'from the result' }
    },
    context: { registration, platform: '-cmd|calc', extensions: { [EXT.session]: '+1 session', [EXT.detail]: { steps: [1, 'two'] } } },
    timestamp: '2026-01-02T03:04:05.678Z'
  })
  const plain = statement({
    id: crypto.randomUUID(),
    actor: { account: { homePage: 'http://lms.example.com', name: 'learner-7' } },
    object: { objectType: 'Agent', name: 'Coach', mbox_sha1sum: 'a'.repeat(40) }
  })
  await postStatements(lrs.client, [full, plain])

  const all = Object.keys(require('../../src/transfer/statement-csv').FIELDS)
  const fields = [...all, `ext:${EXT.session}`, `ext:${EXT.attempt}`, `ext:${EXT.detail}`, 'ext:http://example.com/none']
  const { res, header, rows } = await exportCsv(lrs.http, `&lang=fr-FR&fields=${encodeURIComponent(fields.join(','))}`)
  assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8; header=present')
  assert.match(res.headers.get('content-disposition'), /^attachment; filename="statements-default-\d{4}-\d{2}-\d{2}\.csv"$/)
  assert.deepEqual(header, fields)
  assert.equal(rows.length, 2)
  // (the order is the store's: stored on SQLite, statement id on MongoDB)
  const a = rows.find((r) => r.id === full.id)
  const b = rows.find((r) => r.id === plain.id)
  assert.equal(a.timestamp, '2026-01-02T03:04:05.678Z')
  assert.ok(!Number.isNaN(Date.parse(a.stored)))
  assert.equal(a.actor, 'mailto:jane@example.com')
  assert.equal(a.actor_name, tricky, 'a name with a comma, quotes, CRLF and accents comes back whole')
  assert.equal(a.verb, 'http://adlnet.gov/expapi/verbs/completed')
  assert.equal(a.verb_display, 'terminé', 'the language asked for')
  assert.equal(a.object, 'http://example.com/courses/c1')
  assert.equal(a.object_name, 'Cours, un', 'the same primary language when the exact tag is missing')
  assert.equal(a.object_type, 'Activity')
  assert.equal(a.result_success, 'true')
  assert.equal(a.result_completion, 'true')
  assert.deepEqual([a.result_score_scaled, a.result_score_raw, a.result_score_min, a.result_score_max], ['-0.5', '-3', '-10', '10'], 'numbers stay numbers')
  assert.equal(a.result_duration, 'PT1M30S')
  assert.equal(a.result_response, "'@SUM(A1:A9)", 'a cell starting with @ is neutralised')
  assert.equal(a.registration, registration)
  assert.equal(a.platform, "'-cmd|calc", 'a cell starting with - is neutralised')
  assert.equal(a.voided, 'false')
  assert.equal(a[`ext:${EXT.session}`], "'+1 session", 'the context\'s extension before the result\'s, neutralised')
  assert.equal(a[`ext:${EXT.attempt}`], '2', 'the result\'s extension')
  assert.equal(a[`ext:${EXT.detail}`], '{"steps":[1,"two"]}', 'an object as JSON')
  assert.equal(a['ext:http://example.com/none'], '')
  assert.match(res.text, /,-3,-10,10,/, 'negative scores are written unquoted and unprefixed')

  assert.equal(b.actor, 'http://lms.example.com|learner-7')
  assert.equal(b.actor_name, '')
  assert.equal(b.object, 'a'.repeat(40))
  assert.equal(b.object_name, 'Coach')
  assert.equal(b.object_type, 'Agent')
  assert.equal(b.timestamp, b.stored, 'a statement sent without timestamp has its stored time')
  assert.equal(b.result_success, '')
  assert.equal(b.result_score_raw, '')

  // no lang: the first language of each map; the default columns
  const plainExport = await exportCsv(lrs.http)
  assert.deepEqual(plainExport.header, DEFAULT_FIELDS)
  const first = plainExport.rows.find((r) => r.id === full.id)
  assert.equal(first.verb_display, 'completed')
  assert.equal(first.object_name, "'=HYPERLINK(\"http://evil.example.com\")", 'a cell starting with = is neutralised')
  assert.equal(first.actor_name, tricky)
  const displayIn = async (lang) => (await exportCsv(lrs.http, `&lang=${encodeURIComponent(lang)}&fields=id,verb_display`)).rows.find((r) => r.id === full.id).verb_display
  assert.equal(await displayIn('de'), 'abgeschlossen')
  assert.equal(await displayIn('ja, de;q=0.5'), 'abgeschlossen', 'a list as Accept-Language writes it')
  assert.equal(await displayIn('ja'), 'completed', 'none of its languages: the first')

  // bom=true: Excel's UTF-8 mark, then the same file
  const withBom = await lrs.http('/admin/statements/export?format=csv&bom=true&fields=actor_name')
  assert.deepEqual([...withBom.buffer.subarray(0, 3)], [0xef, 0xbb, 0xbf])
  assert.deepEqual(parseCsv(withBom.buffer.subarray(3).toString('utf8')).sort(), [['actor_name'], [tricky], ['']].sort())

  // the NDJSON export is unchanged, and takes no CSV parameter
  const ndjson = await lrs.http('/admin/statements/export')
  assert.match(ndjson.headers.get('content-type'), /^application\/x-ndjson/)
  assert.equal(ndjson.text.trim().split('\n').length, 2)
})

test('voided statements are left out of a CSV by default and included, flagged, with voided=include; the NDJSON export keeps them', async () => {
  const lrs = await startLrs()
  const kept = statement({ id: crypto.randomUUID() })
  const target = statement({ id: crypto.randomUUID() })
  await postStatements(lrs.client, [kept, target])
  const voiding = statement({ id: crypto.randomUUID(), verb: { id: 'http://adlnet.gov/expapi/verbs/voided', display: { 'en-US': 'voided' } }, object: { objectType: 'StatementRef', id: target.id } })
  await postStatements(lrs.client, voiding)

  const byId = (rows) => rows.slice().sort((x, y) => (x.id < y.id ? -1 : 1))
  const byDefault = await exportCsv(lrs.http, '&fields=id,verb,object,object_type,voided')
  assert.deepEqual(byDefault.rows.map((r) => r.id).sort(), [kept.id, voiding.id].sort(), 'the voided statement is not there; the voiding one is')
  assert.deepEqual(byDefault.rows.find((r) => r.id === voiding.id), { id: voiding.id, verb: 'http://adlnet.gov/expapi/verbs/voided', object: target.id, object_type: 'StatementRef', voided: 'false' })

  const included = await exportCsv(lrs.http, '&fields=id,voided&voided=include')
  assert.deepEqual(byId(included.rows), byId([{ id: kept.id, voided: 'false' }, { id: target.id, voided: 'true' }, { id: voiding.id, voided: 'false' }]))

  assert.equal((await lrs.http('/admin/statements/export')).text.trim().split('\n').length, 3)
})

test('a CSV export has the credential\'s store\'s statements only, across pages, each once', async () => {
  const lrs = await startLrs()
  const other = await storeWithAdmin(lrs, 'csv-other')
  const theirs = statement({ id: crypto.randomUUID() })
  await postStatements(other.xapi, theirs)
  const ours = []
  for (let k = 0; k < 3; k++) {
    const batch = Array.from({ length: 402 }, () => statement({ id: crypto.randomUUID() }))
    await postStatements(lrs.client, batch)
    ours.push(...batch.map((s) => s.id))
  }
  // voided statements among the others (on SQLite one in the middle of the first page, one at its end)
  const voided = [ours[500], ours[999]]
  await postStatements(lrs.client, voided.map((id) => statement({ id: crypto.randomUUID(), verb: { id: 'http://adlnet.gov/expapi/verbs/voided' }, object: { objectType: 'StatementRef', id } })))

  // (past the first page, lines are made on a thread of their own: csv-line-thread.js)
  const mine = await exportCsv(lrs.http, '&fields=id,verb,actor')
  const ids = mine.rows.map((r) => r.id)
  assert.ok(mine.rows.every((r) => r.verb.startsWith('http') && r.actor.startsWith('mailto:')), 'every row has its cells')
  assert.equal(ids.length, ours.length - voided.length + 2) // the voiding statements are rows
  assert.equal(new Set(ids).size, ids.length, 'each once')
  const expected = new Set(ours.filter((id) => !voided.includes(id)))
  assert.equal(ids.filter((id) => expected.has(id)).length, expected.size, 'every statement not voided')
  assert.ok(!ids.includes(theirs.id), 'another store\'s statement is never in it')

  const theirsCsv = await exportCsv(other.admin, '&fields=id,actor')
  assert.deepEqual(theirsCsv.rows.map((r) => r.id), [theirs.id])
  assert.match(theirsCsv.res.headers.get('content-disposition'), /filename="statements-csv-other-/)
})

test('a wrong fields list, or a CSV parameter without format=csv, is 400 with a JSON message naming it', async () => {
  const lrs = await startLrs()
  const refused = async (query, pattern) => {
    const res = await lrs.http(`/admin/statements/export?${query}`)
    assert.equal(res.status, 400, `${query}: ${res.text}`)
    assert.match(res.headers.get('content-type'), /^application\/json/)
    assert.equal(res.json.code, 'LRS_ERR_PARAMETER_INVALID')
    assert.match(res.json.message, pattern, query)
  }
  await refused('format=csv&fields=id,score', /unknown field "score"/)
  await refused('format=csv&fields=', /fields is empty/)
  await refused('format=csv&fields=id,,verb', /empty name/)
  await refused(`format=csv&fields=${Array(51).fill('id').join(',')}`, /at most 50/)
  await refused('format=csv&fields=ext:not-an-iri', /field "ext:not-an-iri".*absolute IRI/)
  await refused('format=csv&fields=ext:', /field "ext:"/)
  await refused('format=xlsx', /format must be ndjson or csv/)
  await refused('format=csv&voided=only', /voided must be exclude or include/)
  await refused('fields=id', /fields applies to format=csv only/)
  await refused('voided=include', /voided applies to format=csv only/)
  // 50 fields are fine
  assert.equal((await lrs.http(`/admin/statements/export?format=csv&fields=${Array(50).fill('id').join(',')}`)).status, 200)
})
