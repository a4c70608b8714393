'use strict'

// `lrs check` on SQLite: are the files sound (the database file and the
// index file, open.js), and do the statement indexes say what the
// statements say? Opens them read-only and reads them in one transaction,
// so it runs on a stopped store or beside a live LRS (it sees one
// snapshot; the writer goes on meanwhile). Changes nothing.
//
// The file: PRAGMA integrity_check (every page, every b-tree, every index
// of a table against its rows), or quick_check (the same without the
// index-against-rows part: much faster on a big file).
//
// The statement indexes (schema.js): GET /statements finds a statement only
// through its (term, seq) rows and its (id, seq) row, in any one of the
// LEVELS tables. SQLite's own check cannot know that these rows belong to
// the statements, so a row lost or left behind there passes it, and shows
// only as a statement that queries never return (or a 404 by id). So:
//   - every term of a statement (its term_ids) has its row in one level,
//     and every term id is in the `terms` dictionary;
//   - every row of the term tables belongs to a statement that has it;
//   - every statement has its (id, seq) row in one level, and every id row
//     points at the statement with that id;
//   - no row is in two levels (a merge moves each row once), but for the
//     recent buffer being copied into the middle level, whose rows are
//     there and in the level they have reached until it is emptied;
//   - the counts agree: id rows = statements, term rows = statement terms
//     (a row in both of those counted once);
//   - (not with quick) every packed body unpacks to JSON (body-codec.js):
//     one that does not fails every read of its statement.
// A stop between the two files' commits (a crash, kill -9) leaves the index
// file without the last transaction's removals and moves of statements,
// kept in the database file's index_journal for the writer to apply when it
// next starts (schema.js): then the indexes are not compared with the
// statements (every such row would read as left behind), and the summary
// says so; `lrs check` after the LRS has started again checks them.
// A deleted store whose purge has not ended (write-deletion.js, storePurgeSlice)
// is passed over: its rows go term by term, not statement by statement,
// and no request reaches them. Once purged, nothing of it is left, and
// anything that is shows here.
// Each check stops collecting examples at EXAMPLES but counts every case.

const fs = require('node:fs')
const path = require('node:path')
const Database = require('better-sqlite3')
const { databaseFile, indexFile } = require('./open')
const { blobToId } = require('./ids')
const { addTermKeyFunction } = require('./terms')
const { plainTermId, storeOfTermId, STORE_SPAN } = require('./store-terms')
const { LEVELS, RECENT_BUFFERS, UPPER_LEVELS, TERM_TABLES, ID_TABLES, DICT_TABLES, SEQ_OF_ID } = require('./schema')
const { unpackBody } = require('./body-codec')

const EXAMPLES = 3
const INTEGRITY_MESSAGES = 20

// Runs `sql`, counting its rows and keeping the first few as `describe`
// words them; adds one problem when there are any. `what`: [one, many].
function collect (db, problems, sql, params, { what, describe, consequence }) {
  let count = 0
  const examples = []
  for (const row of db.prepare(sql).iterate(...params)) {
    count++
    if (examples.length < EXAMPLES) examples.push(describe(row))
  }
  if (count) problems.push(`${count} ${what[count === 1 ? 0 : 1]}${consequence ? ` (${consequence})` : ''}: e.g. ${examples.join('; ')}`)
  return count
}

function termName (db, id) {
  const row = db.prepare('SELECT term FROM terms WHERE id = ?').get(plainTermId(id))
  return row ? `${id} "${row.term}"` : String(id)
}

const DAMAGED = 'the database file is damaged'
const REMEDY = 'restore it from a backup (lrs export and lrs import move what can still be read)'

function checkFile (db, { quick }) {
  const pragma = quick ? 'quick_check' : 'integrity_check'
  let rows
  try {
    rows = db.prepare(`PRAGMA ${pragma}(${INTEGRITY_MESSAGES})`).pluck().all()
  } catch (err) {
    // a page too damaged for the check to go on (SQLITE_CORRUPT)
    if (/^SQLITE_(CORRUPT|NOTADB)/.test(err.code)) return [`${DAMAGED}: SQLite's ${pragma} stopped at "${err.message}"; ${REMEDY}`]
    throw err
  }
  if (rows.length === 1 && rows[0] === 'ok') return []
  return [`${DAMAGED} (SQLite's ${pragma}: ${rows.join('; ')}); ${REMEDY}`]
}

function checkBodies (db) {
  let count = 0
  const examples = []
  for (const row of db.prepare("SELECT seq, id, body FROM statements WHERE typeof(body) = 'blob'").iterate()) {
    try {
      JSON.parse(unpackBody(row.body))
    } catch (err) {
      count++
      if (examples.length < EXAMPLES) examples.push(`statement ${blobToId(row.id)} (seq ${row.seq}): ${err.message}`)
    }
  }
  return count ? [`${count} statement bod${count === 1 ? 'y does' : 'ies do'} not unpack (reading ${count === 1 ? 'it fails' : 'them fails'}): e.g. ${examples.join('; ')}; ${REMEDY}`] : []
}

function checkTables (db) {
  const have = new Set(db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' UNION ALL SELECT name FROM idx.sqlite_master WHERE type = 'table'").pluck().all())
  const missing = ['statements', 'terms', 'index_recent', ...TERM_TABLES, ...ID_TABLES, ...DICT_TABLES].filter((t) => !have.has(t))
  return missing.length ? [`tables are missing: ${missing.join(', ')} (not a store of this LRS, or a damaged one)`] : []
}

// The stores being purged, and SQL that is true for rows of no such store.
function purgeFilters (db) {
  const columns = db.prepare("SELECT name FROM pragma_table_info('stores')").pluck().all()
  const numbers = columns.includes('deleted_at') ? db.prepare('SELECT number FROM stores WHERE deleted_at IS NOT NULL AND purged_at IS NULL').pluck().all() : []
  const list = `(${numbers.join(', ')})`
  db.function('store_of_term', { deterministic: true }, storeOfTermId)
  db.function('store_of_id', { deterministic: true }, (id) => Buffer.isBuffer(id) && id.length === 20 ? id.readUInt32BE(16) : 0)
  return {
    statement: (s) => `coalesce(${s}.store, 0) NOT IN ${list}`,
    term: (t) => `store_of_term(${t}.term) NOT IN ${list}`,
    id: (i) => `store_of_id(${i}.id) NOT IN ${list}`
  }
}

function checkIndexes (db) {
  const problems = []
  const live = purgeFilters(db)
  const statement = (seq) => {
    const row = db.prepare('SELECT id FROM statements WHERE seq = ?').get(seq)
    return row ? `statement ${blobToId(row.id)} (seq ${seq})` : `seq ${seq}`
  }
  const inLevel = (table, term, seq) => `SELECT 1 FROM ${table} WHERE term = ${term} AND seq = ${seq}`
  const anyLevel = (term, seq) => TERM_TABLES.map((t) => `NOT EXISTS (${inLevel(t, term, seq)})`).join(' AND ')

  collect(db, problems, `SELECT s.seq, j.value AS term FROM statements s, json_each(s.term_ids) j WHERE ${live.statement('s')} AND ${anyLevel('j.value', 's.seq')}`, [], {
    what: [`statement term has no row in the term index (${TERM_TABLES.join(', ')})`, `statement terms have no row in the term index (${TERM_TABLES.join(', ')})`],
    consequence: 'queries by those agents, verbs, activities or registrations miss those statements',
    describe: (r) => `${statement(r.seq)} term ${termName(db, r.term)}`
  })
  // (a store's term ids are the dictionary's made its own: store-terms.js)
  collect(db, problems, `SELECT DISTINCT j.value AS term FROM statements s, json_each(s.term_ids) j WHERE NOT EXISTS (SELECT 1 FROM terms WHERE id = CASE WHEN j.value < 0 THEN -j.value / ${STORE_SPAN} ELSE j.value END)`, [], {
    what: ['term id of statements is missing from the terms dictionary', 'term ids of statements are missing from the terms dictionary'],
    describe: (r) => `term id ${r.term}`
  })
  // schema.js, TERM_DICTIONARY: each term found by its key, as its id
  collect(db, problems, `SELECT t.id FROM terms t WHERE ${DICT_TABLES.map((d) => `NOT EXISTS (SELECT 1 FROM ${d} WHERE key = term_key(t.term) AND id = t.id)`).join(' AND ')}`, [], {
    what: ['term is missing from the dictionary levels', 'terms are missing from the dictionary levels'],
    consequence: 'queries by them find nothing, and new statements give them another id',
    describe: (r) => `term ${termName(db, r.id)}`
  })
  for (const table of DICT_TABLES) {
    collect(db, problems, `SELECT d.key, d.id FROM ${table} d WHERE NOT EXISTS (SELECT 1 FROM terms t WHERE t.id = d.id AND term_key(t.term) = d.key)`, [], {
      what: [`row of ${table} names no term with that key`, `rows of ${table} name no term with that key`],
      consequence: 'queries by those terms find statements of another',
      describe: (r) => `term id ${r.id}`
    })
  }
  for (const table of TERM_TABLES) {
    collect(db, problems, `SELECT t.term, t.seq FROM ${table} t WHERE ${live.term('t')} AND NOT EXISTS (SELECT 1 FROM statements s, json_each(s.term_ids) j WHERE s.seq = t.seq AND j.value = t.term)`, [], {
      what: [`row of ${table} belongs to no statement that has that term`, `rows of ${table} belong to no statement that has that term`],
      consequence: 'queries by those terms find statements they should not, or none',
      describe: (r) => `term ${termName(db, r.term)} at seq ${r.seq}`
    })
  }
  const idAnyLevel = ID_TABLES.map((t) => `NOT EXISTS (SELECT 1 FROM ${t} WHERE id = s.id AND seq = s.seq)`).join(' AND ')
  collect(db, problems, `SELECT s.seq FROM statements s WHERE ${live.statement('s')} AND ${idAnyLevel}`, [], {
    what: [`statement has no row in the id index (${ID_TABLES.join(', ')})`, `statements have no row in the id index (${ID_TABLES.join(', ')})`],
    consequence: 'GET /statements?statementId= answers 404 for them and their ids can be stored again',
    describe: (r) => statement(r.seq)
  })
  for (const table of ID_TABLES) {
    collect(db, problems, `SELECT i.id, i.seq FROM ${table} i WHERE ${live.id('i')} AND NOT EXISTS (SELECT 1 FROM statements s WHERE s.seq = i.seq AND s.id = i.id)`, [], {
      what: [`row of ${table} points at no statement with that id`, `rows of ${table} point at no statement with that id`],
      consequence: 'those ids are refused as taken, or answer with another statement',
      describe: (r) => `id ${blobToId(r.id)} at seq ${r.seq}`
    })
  }
  // the recent buffer not taking inserts: being copied into the middle
  // level, from where its rows copied may have moved on already
  const copied = RECENT_BUFFERS[1 - db.prepare('SELECT active FROM index_recent').pluck().get()]
  for (let a = 0; a < LEVELS.length; a++) {
    for (let b = a + 1; b < LEVELS.length; b++) {
      const [x, y] = [LEVELS[a], LEVELS[b]]
      if (x === copied && UPPER_LEVELS.includes(y)) continue
      collect(db, problems, `SELECT t.term, t.seq FROM ${x.terms} t WHERE EXISTS (SELECT 1 FROM ${y.terms} u WHERE u.term = t.term AND u.seq = t.seq)`, [], {
        what: [`term row is in both ${x.terms} and ${y.terms}`, `term rows are in both ${x.terms} and ${y.terms}`],
        consequence: 'queries return those statements twice',
        describe: (r) => `term ${termName(db, r.term)} at seq ${r.seq}`
      })
      collect(db, problems, `SELECT i.id, i.seq FROM ${x.ids} i WHERE EXISTS (SELECT 1 FROM ${y.ids} j WHERE j.id = i.id)`, [], {
        what: [`id is in both ${x.ids} and ${y.ids}`, `ids are in both ${x.ids} and ${y.ids}`],
        describe: (r) => `id ${blobToId(r.id)}`
      })
      collect(db, problems, `SELECT d.id FROM ${x.dict} d WHERE EXISTS (SELECT 1 FROM ${y.dict} e WHERE e.key = d.key)`, [], {
        what: [`term is in both ${x.dict} and ${y.dict}`, `terms are in both ${x.dict} and ${y.dict}`],
        describe: (r) => `term ${termName(db, r.id)}`
      })
    }
  }

  const count = (table, where) => db.prepare(`SELECT count(*) FROM ${table} x WHERE ${where('x')}`).pluck().get()
  const statements = count('statements', live.statement)
  const termsExpected = db.prepare(`SELECT count(*) FROM statements s, json_each(s.term_ids) j WHERE ${live.statement('s')}`).pluck().get()
  const levels = LEVELS.map((level) => ({ ids: count(level.ids, live.id), terms: count(level.terms, live.term) }))
  const liveRows = { ids: live.id, terms: live.term }
  const inBoth = (rows, keys) => db.prepare(`SELECT count(*) FROM ${copied[rows]} c WHERE ${liveRows[rows]('c')} AND (${UPPER_LEVELS.map((level) =>
    `EXISTS (SELECT 1 FROM ${level[rows]} u WHERE ${keys.map((k) => `u.${k} = c.${k}`).join(' AND ')})`).join(' OR ')})`).pluck().get()
  const idRows = levels.reduce((n, l) => n + l.ids, 0) - inBoth('ids', ['id'])
  const termRows = levels.reduce((n, l) => n + l.terms, 0) - inBoth('terms', ['term', 'seq'])
  const perLevel = LEVELS.map((level, i) => `${level.ids} ${levels[i].ids}, ${level.terms} ${levels[i].terms}`).join('; ')
  if (idRows !== statements) problems.push(`the id index has ${idRows} rows for ${statements} statements (${perLevel})`)
  if (termRows !== termsExpected) problems.push(`the term index has ${termRows} rows for ${termsExpected} statement terms (${perLevel})`)
  return { problems, statements, perLevel }
}

// How many statements the journal removes or moves whose (id, seq) row is
// still where it was: changes the index file does not have yet. (An
// entry's rows are all in one level; in the recent buffers, in the
// database file, they changed with it. Entries already applied wait to be
// cleared by the writer's next transaction: not counted.)
function pendingJournal (db) {
  const entries = db.prepare('SELECT seq, id FROM index_journal WHERE purge IS NULL').all()
  if (!entries.length) return 0
  const stillThere = db.prepare(`SELECT 1 FROM (${SEQ_OF_ID}) WHERE seq = @seq LIMIT 1`).pluck()
  return entries.filter((e) => stillThere.get(e) !== undefined).length
}

// { ok, problems: [sentence], summary } for the store of `config`.

function checkSqliteStore (config, { quick = false } = {}) {
  const file = databaseFile(config.dataDir)
  const index = indexFile(config.dataDir)
  if (!fs.existsSync(file)) return { ok: false, problems: [`there is no database file at ${file} (LRS_DATA_DIR)`], summary: '' }
  if (!fs.existsSync(index)) return { ok: false, problems: [`there is no index file at ${index}: the LRS makes it again from the statements when it starts (docs/operations.md)`], summary: '' }
  let db
  try {
    db = new Database(file, { readonly: true, fileMustExist: true })
    db.prepare('ATTACH DATABASE ? AS idx').run(index) // read-only, as the connection
    db.pragma('busy_timeout = 5000')
    addTermKeyFunction(db)
  } catch (err) {
    if (db) db.close()
    return { ok: false, problems: [`${file} or ${index} cannot be opened: ${err.message}`], summary: '' }
  }
  const problems = []
  let found = null
  let pending = null
  // Each part on its own: a damaged file can make any read throw
  // (SQLITE_CORRUPT), and what the other parts find is still worth saying.
  const attempt = (what, fn) => {
    try {
      return fn()
    } catch (err) {
      problems.push(`${what} failed: ${err.message}`)
      return null
    }
  }
  try {
    db.exec('BEGIN') // one snapshot for every read below
    problems.push(...(attempt('the file check', () => checkFile(db, { quick })) || []))
    const tables = attempt('reading the schema', () => checkTables(db))
    if (tables) problems.push(...tables)
    if (tables && !tables.length) {
      pending = attempt('reading the index journal', () => pendingJournal(db))
      if (pending === 0) found = attempt('the index check', () => checkIndexes(db))
      if (found) problems.push(...found.problems)
      if (!quick) problems.push(...(attempt('the body check', () => checkBodies(db)) || []))
    }
  } finally {
    try { db.exec('COMMIT') } catch {}
    db.close()
  }
  const summary = found
    ? `${file}: ${found.statements} statements; indexes (${path.basename(index)} from middle_ids on): ${found.perLevel}`
    : pending
      ? `${file}; indexes not checked: ${pending} statements removed or moved by the last transaction are not yet so in ${path.basename(index)} (the LRS stopped between the two files' commits); the writer applies them from the journal when it next starts: start the LRS, then check again`
      : file
  return { ok: problems.length === 0, problems, summary }
}

module.exports = { checkSqliteStore }
