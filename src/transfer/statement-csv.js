'use strict'

// Statements as CSV for spreadsheets (GET /admin/statements/export?format=csv):
// one row per statement with the columns `fields` names, after a header row
// of those names. RFC 4180: CRLF line ends, a cell quoted when it holds a
// comma, a quote, CR or LF, its quotes doubled; UTF-8. Read in pages like
// the NDJSON export (export-statements.js), so memory stays flat for any
// size; each body is parsed once and each line built with one join.
//
// Formula injection is neutralised cell by cell (csv-cells.js).

const { errors } = require('../errors')
const { formatStatement } = require('../resources/statements/statement-formats')
const { unqualify } = require('../stores/store-keys')
const { textCell, numberCell, booleanCell, valueCell } = require('./csv-cells')

const PAGE = 1000
const MAX_FIELDS = 50
const EXT = 'ext:'
const BOM = '\ufeff'

// ---- what the columns read ---------------------------------------------------

// An Agent's or identified Group's inverse functional identifier; an
// account as homePage|name. An anonymous Group has none.
function identifierOf (agent) {
  if (!agent) return undefined
  if (agent.mbox !== undefined) return agent.mbox
  if (agent.mbox_sha1sum !== undefined) return agent.mbox_sha1sum
  if (agent.openid !== undefined) return agent.openid
  if (agent.account) return agent.account.homePage + '|' + agent.account.name
  return undefined
}

// Another store's rows have their ids qualified (`s<n>|<id>`,
// store-keys.js); an id, hex, never starts with an s.
const idOf = (row) => (row.id.charCodeAt(0) === 115 ? unqualify(row.id) : row.id)

const objectTypeOf = (s) => s.object.objectType || 'Activity'
const isAgent = (type) => type === 'Agent' || type === 'Group'

// The value of a language map in the language `lang` asks for (a tag, or a
// list as Accept-Language writes it), by the rule GET /statements'
// canonical format applies (statement-formats.js: exact tag, then the same
// primary language, else the first). That rule is asked once per set of
// languages a map has, not per row.
const KNOWN_LANGUAGE_SETS = 1000
function languagePicker (lang = '') {
  const chosen = new Map()
  return function inLanguage (map) {
    if (!map || typeof map !== 'object') return undefined
    const keys = Object.keys(map)
    if (keys.length <= 1) return map[keys[0]]
    const set = keys.join('\n')
    let key = chosen.get(set)
    if (key === undefined) {
      const picked = formatStatement({ verb: { id: '', display: map }, object: { objectType: 'StatementRef', id: '' } }, 'canonical', lang)
      key = Object.keys(picked.verb.display)[0]
      if (chosen.size >= KNOWN_LANGUAGE_SETS) chosen.clear()
      chosen.set(set, key)
    }
    return map[key]
  }
}

// Each field: (row, statement, inLanguage) -> its cell. `row`: what
// statements.scan returns (id, stored, timestampFromStored, voided);
// `statement`: the parsed body (null for fields marked `row`).
const score = (name) => (row, s) => numberCell(s.result && s.result.score && s.result.score[name])
const FIELDS = {
  id: { row: true, cell: (row) => idOf(row) },
  timestamp: { cell: (row, s) => row.timestampFromStored ? row.stored.toISOString() : textCell(s.timestamp) },
  stored: { row: true, cell: (row) => row.stored.toISOString() },
  actor: { cell: (row, s) => textCell(identifierOf(s.actor)) },
  actor_name: { cell: (row, s) => textCell(s.actor.name) },
  verb: { cell: (row, s) => textCell(s.verb.id) },
  verb_display: { cell: (row, s, inLanguage) => textCell(inLanguage(s.verb.display)) },
  object: { cell: (row, s) => textCell(isAgent(objectTypeOf(s)) ? identifierOf(s.object) : s.object.id) },
  object_name: {
    cell (row, s, inLanguage) {
      const type = objectTypeOf(s)
      if (type === 'Activity') return textCell(s.object.definition && inLanguage(s.object.definition.name))
      return isAgent(type) ? textCell(s.object.name) : ''
    }
  },
  object_type: { cell: (row, s) => textCell(objectTypeOf(s)) },
  result_success: { cell: (row, s) => booleanCell(s.result && s.result.success) },
  result_completion: { cell: (row, s) => booleanCell(s.result && s.result.completion) },
  result_score_scaled: { cell: score('scaled') },
  result_score_raw: { cell: score('raw') },
  result_score_min: { cell: score('min') },
  result_score_max: { cell: score('max') },
  result_duration: { cell: (row, s) => textCell(s.result && s.result.duration) },
  result_response: { cell: (row, s) => textCell(s.result && s.result.response) },
  registration: { cell: (row, s) => textCell(s.context && s.context.registration) },
  platform: { cell: (row, s) => textCell(s.context && s.context.platform) },
  voided: { row: true, cell: (row) => booleanCell(row.voided === true) }
}

const DEFAULT_FIELDS = ['id', 'stored', 'timestamp', 'actor', 'actor_name', 'verb', 'verb_display', 'object', 'object_name', 'result_success', 'result_completion', 'result_score_scaled', 'registration']

// `ext:<IRI>`: the extension of the context, else of the result.
function extensionField (iri) {
  return {
    cell (row, s) {
      const c = s.context && s.context.extensions
      if (c && Object.prototype.hasOwnProperty.call(c, iri)) return valueCell(c[iri])
      const r = s.result && s.result.extensions
      return r && Object.prototype.hasOwnProperty.call(r, iri) ? valueCell(r[iri]) : ''
    }
  }
}

// ---- the parameter -----------------------------------------------------------

const FIELD_LIST = `${Object.keys(FIELDS).join(', ')} or ${EXT}<IRI>`

// `text`: the `fields` parameter (absent: DEFAULT_FIELDS); `isIri`: the
// statement validator's IRI check. The field names, or 400 naming the one
// that is wrong. An extension IRI holding a comma cannot be named (the
// list is split at commas).
function parseFields (text, { isIri }) {
  if (text === undefined) return DEFAULT_FIELDS
  const names = text.split(',').map((name) => name.trim())
  if (names.length === 1 && names[0] === '') throw errors.InvalidParameter(`fields is empty: name one or more of ${FIELD_LIST}, separated by commas`)
  if (names.length > MAX_FIELDS) throw errors.InvalidParameter(`fields names ${names.length} fields: at most ${MAX_FIELDS}`)
  for (const name of names) {
    if (name === '') throw errors.InvalidParameter('fields has an empty name (two commas in a row, or one at an end)')
    if (name.startsWith(EXT)) {
      if (!isIri(name.slice(EXT.length))) throw errors.InvalidParameter(`field "${name}": an extension field is ${EXT} followed by an absolute IRI`)
    } else if (!Object.prototype.hasOwnProperty.call(FIELDS, name)) {
      throw errors.InvalidParameter(`unknown field "${name}" in fields: choose from ${FIELD_LIST}`)
    }
  }
  return names
}

// ---- the export --------------------------------------------------------------

// (row) -> its CSV line, for the checked `fields`.
function lineMaker (fields, { lang }) {
  const columns = fields.map((name) => (name.startsWith(EXT) ? extensionField(name.slice(EXT.length)) : FIELDS[name]))
  const cells = columns.map((c) => c.cell)
  const parse = columns.some((c) => !c.row) // a file of ids and stored times reads no body
  const inLanguage = languagePicker(lang)
  const out = new Array(cells.length)
  return function lineOf (row) {
    const s = parse ? JSON.parse(row.body) : null
    for (let i = 0; i < cells.length; i++) out[i] = cells[i](row, s, inLanguage)
    return out.join(',') + '\r\n'
  }
}

// Yields strings of whole lines of one store (`store`: its number): the
// header row (after a byte order mark with `bom`, which Excel needs to
// read UTF-8) with the first page, so a store that fails on the first
// read fails before anything is sent. `voided`: 'exclude' leaves voided
// statements out, 'include' keeps them (the `voided` field says which).
// Past the first page, lines are made on a thread (csv-line-thread.js)
// while the next page is read.
async function * exportCsv (statements, { since = null, until = null, store = 0, fields = DEFAULT_FIELDS, lang, voided = 'exclude', bom = false } = {}) {
  const keepVoided = voided === 'include'
  const kept = (rows) => keepVoided ? rows : rows.filter((row) => row.voided !== true)
  const read = (after) => statements.scan({ since, until, after, limit: PAGE, store })
  const lineOf = lineMaker(fields, { lang })
  let rows = await read(null)
  let out = (bom ? BOM : '') + fields.map(textCell).join(',') + '\r\n'
  for (const row of kept(rows)) out += lineOf(row)
  yield out
  if (rows.length < PAGE) return
  const { csvLineThread } = require('./csv-line-thread') // here: the thread's file requires this one
  const thread = csvLineThread({ fields, lang })
  try {
    let pending = null // the lines of the page before, being made
    for (;;) {
      rows = await read(rows[rows.length - 1].position)
      const lines = thread.format(kept(rows))
      lines.catch(() => {}) // awaited in its turn
      if (pending) yield await pending
      pending = lines
      if (rows.length < PAGE) break
    }
    yield await pending
  } finally {
    await thread.close()
  }
}

module.exports = { exportCsv, lineMaker, parseFields, FIELDS, DEFAULT_FIELDS, MAX_FIELDS }
