'use strict'

// The SQLite schema. Statements are ordered by `seq`, the integer primary
// key: stored time in ms shifted left 11 bits, plus a counter, so that
// the rowid order is the order of `stored` and every query walks a b-tree
// in that order (2048 statements per ms; JavaScript integers are exact up
// to year 2109; an import of more with one stored time keeps it in
// stored_ms, write-statements.js).
//
// Every filter of GET /statements is a lookup of one term in
// statement_terms, (term, seq) rows in a WITHOUT ROWID table: the terms of
// a statement are its agents (a: actor/object, r: other related agents),
// activities (o: object, c: context and sub-statement), verb (v:),
// registration (g:) and authority (u:), each an integer from the `terms`
// dictionary. A statement gets one row per distinct term, few and small:
// index upkeep is what an insert costs.
//
// Statement ids are found the same way, in (id, seq) tables: the id is a
// client's random UUID, so every new id falls in a random place of the
// id order.
//
// Both kinds of index rows are written first to a small recent level (two
// buffers, RECENT_BUFFERS below) and moved in bulk, in key order, to the next
// level when a level holds sixteen times the statements of the one before
// (index-merges.js): recent (8,192), middle (131,072), level2
// (2,097,152), level3 (33,554,432), then the big tables (statement_terms,
// statement_ids) with everything older. A commit of 500 statements adds
// rows in hundreds of places of each order: inserted into the big tables
// directly, every commit rewrote one page per place, and the bytes written
// per statement grew with the store (7.7 KB at 20,000 statements, 43 KB
// at 200,000; the insert rate fell from 13,500 to 5,900 statements/s). The
// small tables keep a commit's pages few; a merge writes each page of the
// next level once for thousands of statements. With a fixed number of
// levels below an unbounded one, the merges into that one rewrite it
// whole each time, and the store pays more per statement the larger it
// is: with three levels the bytes written per statement went from 8.4 KB
// at 100,000 statements to 25.8 KB at 1 M, and the insert rate fell by a
// third. With levels sixteen times apart each statement is rewritten at
// most about eight times per level, whatever the size of the store below
// 33 M; up to then the big tables take no merges at all. Readers look in
// every level (TERM_TABLES, ID_TABLES): an empty level costs one seek.
// The statements each level above the recent one holds are counted in
// index_levels, which the merges keep (a count(*) of a level of millions
// reads all its pages). Those levels are in the index file (open.js,
// attached as `idx`), which the merge thread writes beside the writer
// (merge-loop.js); the recent buffers are in the database file.
//
// TERM_DICTIONARY: a term's id is found by its key (terms.js, termKey) in
// the dictionary tables of the levels (DICT_TABLES: recent_dict and
// recent2_dict, middle_dict ... term_dict), written and merged with the
// index rows of the statements that brought the term; its string is in
// `terms`, appended in id order. Until version 10 `terms` had a UNIQUE
// index on the string: hashed agents and registrations are random
// strings, so each new term went to a random page of that index, and with
// a new registration for every statement each commit rewrote one 16 KiB
// page per new term (37 KB written per statement at 300,000 statements;
// the writer's CPU per statement grew by half by 750,000). The levels take
// new keys in a small buffer and move them in bulk, as they do ids.
//
// VERB_IN_TERM_ROWS: every term row carries its statement's verb, so a
// verb filter that does not drive a query (agent and verb; registration,
// verb and course) is checked on the row that drives it. Looked up in the
// term index instead, each statement walked cost a read of a random page
// of the largest level: 4 us of the 5 to 8 per statement walked at 10 M,
// where such a query walks 700 statements for a page of 100. About 2 bytes
// a row. NULL where it was not known (rows written before, or by an older
// LRS): those are checked in the index as before (statement-sql.js).

const { hashedAgent, termReader } = require('./terms')
const { SHIFT } = require('./seq')
const { flushNow } = require('../../logger')
const { DEFAULT_TERM_FROM } = require('./store-terms')
const { ROLLUP_DDL, buildReportRollups } = require('./report-rollups')
const { useMboxCase } = require('../../resources/agents/agent-keys')

const VERSION = 15
// The settings row that says how this file keys mboxes (version 14).
const MBOX_CASE = 'mbox_case'

// The recent level is two buffers (RECENT_BUFFERS; which one takes the
// inserts is in index_recent). Once the one that does is full, the other
// takes them, and the full one is copied into the middle level in slices,
// then emptied at once (index-merges.js): no slice has to delete the
// rows it copied from a table that is being inserted into, and a commit
// rewrites the pages of the buffer that takes inserts only. Until it is
// emptied, the rows of the copied buffer are in the middle level as well:
// readers merge the levels with UNION (a statement once), and find an id
// at the same seq in either.
const RECENT_BUFFERS = [
  { terms: 'recent_terms', ids: 'recent_ids', dict: 'recent_dict', schema: 'main' },
  { terms: 'recent2_terms', ids: 'recent2_ids', dict: 'recent2_dict', schema: 'main' }
]
// Above the recent level, newest first: each level's rows are merged into
// the next.
const UPPER_LEVELS = [
  { terms: 'middle_terms', ids: 'middle_ids', dict: 'middle_dict', schema: 'idx' },
  { terms: 'level2_terms', ids: 'level2_ids', dict: 'level2_dict', schema: 'idx' },
  { terms: 'level3_terms', ids: 'level3_ids', dict: 'level3_dict', schema: 'idx' },
  { terms: 'statement_terms', ids: 'statement_ids', dict: 'term_dict', schema: 'idx' }
]
// Where the (term, seq) and (id, seq) rows are, newest first.
const LEVELS = [...RECENT_BUFFERS, ...UPPER_LEVELS]
const TERM_TABLES = LEVELS.map((level) => level.terms)
const ID_TABLES = LEVELS.map((level) => level.ids)
// The term dictionary's levels (terms.js, TERM_DICTIONARY below).
const DICT_TABLES = LEVELS.map((level) => level.dict)
// The seq of the stored id @id, from whichever id table holds it.
const SEQ_OF_ID = ID_TABLES.map((table) => `SELECT seq FROM ${table} WHERE id = @id`).join(' UNION ALL ')

const STATEMENTS_TABLE = `
CREATE TABLE IF NOT EXISTS statements (
  seq INTEGER PRIMARY KEY,
  id BLOB NOT NULL,
  voided INTEGER NOT NULL DEFAULT 0,
  voiding INTEGER NOT NULL DEFAULT 0,
  referenced INTEGER NOT NULL DEFAULT 0,
  ts INTEGER NOT NULL DEFAULT 0,
  verb INTEGER NOT NULL,
  registration INTEGER,
  authority INTEGER NOT NULL,
  ref BLOB,
  term_ids TEXT NOT NULL,
  attachments TEXT,
  body TEXT NOT NULL,
  stored_ms INTEGER
)`

const DDL = `${STATEMENTS_TABLE};
${ROLLUP_DDL}
CREATE INDEX IF NOT EXISTS statements_ref ON statements (ref) WHERE ref IS NOT NULL;
-- Whether another statement still uses an attachment (agent erasure).
CREATE INDEX IF NOT EXISTS statements_with_attachments ON statements (seq) WHERE attachments IS NOT NULL;

CREATE TABLE IF NOT EXISTS terms (
  id INTEGER PRIMARY KEY,
  term TEXT NOT NULL
);

${LEVELS.map((level) => `CREATE TABLE IF NOT EXISTS ${level.schema}.${level.terms} (
  term INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  verb INTEGER, -- VERB_IN_TERM_ROWS
  PRIMARY KEY (term, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ${level.schema}.${level.ids} (
  id BLOB PRIMARY KEY,
  seq INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ${level.schema}.${level.dict} (
  key BLOB PRIMARY KEY,
  id INTEGER NOT NULL
) WITHOUT ROWID;`).join('\n')}

-- The statements in each level of the index between the recent one and
-- the big one (1 middle, 2 level2, 3 level3; see UPPER_LEVELS).
CREATE TABLE IF NOT EXISTS idx.index_levels (
  level INTEGER PRIMARY KEY,
  statements INTEGER NOT NULL
);

-- The recent buffer that takes new rows (0 or 1, see RECENT_BUFFERS), and
-- how many times the buffers have been switched: the other one holds the
-- rows from before the last switch until index_copy says they are copied.
CREATE TABLE IF NOT EXISTS index_recent (
  only INTEGER PRIMARY KEY CHECK (only = 0),
  active INTEGER NOT NULL CHECK (active IN (0, 1)),
  generation INTEGER NOT NULL DEFAULT 0
);
INSERT OR IGNORE INTO index_recent (only, active) VALUES (0, 0);


-- What erasures and restamps changed in the index file, kept in the
-- database file in the same transaction: a transaction over both files
-- commits one file and then the other, so a stop between the two would
-- leave the index file without those changes. The writer applies what is
-- here again (it is idempotent) before every transaction that writes the
-- index file, and clears it once such a transaction has committed
-- (writer-loop.js). to_seq: where the statement moved (restamp); NULL: it
-- was removed (erasure).
-- purge: a slice of a deleted store's purge instead (write-deletion.js,
-- storePurgeSlice; JSON), the other columns unused.
CREATE TABLE IF NOT EXISTS index_journal (
  n INTEGER PRIMARY KEY,
  seq INTEGER NOT NULL,
  to_seq INTEGER,
  id BLOB NOT NULL,
  term_ids TEXT NOT NULL,
  purge TEXT
);

-- Voiding and StatementRef flags for statements not stored yet (Data 2.3.2.s2.b3).
CREATE TABLE IF NOT EXISTS pending_flags (
  id BLOB PRIMARY KEY,
  voided INTEGER NOT NULL DEFAULT 0,
  referenced INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
-- whether a voiding waits for its target: asked before each batch
-- (write-statements.js, the reports' rollups), however many StatementRefs wait
CREATE INDEX IF NOT EXISTS pending_voids ON pending_flags (id) WHERE voided = 1;

CREATE TRIGGER IF NOT EXISTS statements_take_pending_flags AFTER INSERT ON statements
WHEN EXISTS (SELECT 1 FROM pending_flags WHERE id = NEW.id)
BEGIN
  UPDATE statements SET
    voided = (SELECT voided FROM pending_flags WHERE id = NEW.id) AND NOT NEW.voiding,
    referenced = (SELECT referenced FROM pending_flags WHERE id = NEW.id)
  WHERE seq = NEW.seq;
  DELETE FROM pending_flags WHERE id = NEW.id;
END;

CREATE TABLE IF NOT EXISTS documents (
  key TEXT PRIMARY KEY,
  resource TEXT NOT NULL,
  scope TEXT NOT NULL,
  registration TEXT,
  doc_id TEXT NOT NULL,
  content_type TEXT NOT NULL,
  etag TEXT NOT NULL,
  updated INTEGER NOT NULL,
  content BLOB NOT NULL,
  agent TEXT,
  store INTEGER -- NULL: the default store (version 12)
);
CREATE INDEX IF NOT EXISTS documents_scope ON documents (resource, scope, updated);

CREATE TABLE IF NOT EXISTS attachments (
  sha2 TEXT PRIMARY KEY,
  content_type TEXT NOT NULL,
  length INTEGER NOT NULL,
  content BLOB NOT NULL
);

CREATE TABLE IF NOT EXISTS credentials (
  key TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used INTEGER
);

CREATE TABLE IF NOT EXISTS forward_outbox (
  upstream TEXT NOT NULL,
  statement_id BLOB NOT NULL,
  enqueued_at INTEGER NOT NULL,
  lease_until INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (upstream, statement_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS forward_outbox_lease ON forward_outbox (upstream, lease_until);

CREATE TABLE IF NOT EXISTS forward_dead_letters (
  upstream TEXT NOT NULL,
  statement_id BLOB NOT NULL,
  enqueued_at INTEGER NOT NULL,
  status INTEGER NOT NULL,
  reason TEXT NOT NULL,
  failed_at INTEGER NOT NULL,
  PRIMARY KEY (upstream, statement_id)
) WITHOUT ROWID;

-- Statements stored per hour (of stored, in ms / 3,600,000), and per verb,
-- object activity and authority term in that hour: GET /admin/overview
-- sums a range of hours here instead of reading the statements (a range
-- of a million rows of ~2 KB each is not read in 200 ms). The writer
-- keeps them in the transaction that inserts, moves or erases statements
-- (write-counters.js).
CREATE TABLE IF NOT EXISTS hourly_totals (
  hour INTEGER PRIMARY KEY,
  count INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS hourly_terms (
  hour INTEGER NOT NULL,
  term INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (hour, term)
) WITHOUT ROWID;

-- Stores (src/stores/store-keys.js): number 0 is the default store, in
-- which everything from before stores is. \`id\` names it in the API, for
-- good; \`name\` is what people see.
-- A deleted store (deleted_at) keeps its row for good, so its number is
-- never given again (a new store takes the largest + 1) and no key or term
-- id of its data can be a new store's while its data is being purged
-- (write-deletion.js, storePurgeSlice); its id becomes '#<number>|<id>' (no
-- store id starts with '#'), free for a new store at once. purged_at: when
-- the last of its data went; purge_terms: its terms whose index rows are
-- being removed a slice at a time (write-deletion.js).
CREATE TABLE IF NOT EXISTS stores (
  number INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  deleted_at INTEGER,
  purged_at INTEGER,
  purge_terms TEXT,
  retention_days INTEGER, -- keep statements this many days after \`stored\` (src/stores/retention.js); NULL: for good
  forward_urls TEXT -- JSON: the upstreams its statements are forwarded to (src/forwarding/upstreams.js); NULL: none
);

CREATE TABLE IF NOT EXISTS settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- Forwarders (src/forwarding/forwarders.js): where a store's statements
-- go, managed through /admin/forwarders. \`definition\`: JSON, its secrets
-- sealed (src/auth/sealed-secrets.js); \`revision\`: + 1 on every change
-- (a change is made only against the revision it read). A table an older
-- LRS ignores.
CREATE TABLE IF NOT EXISTS forwarders (
  id TEXT PRIMARY KEY,
  store INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  definition TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);

-- Saved reports (src/reports/, /admin/reports): a store's report
-- definitions, run by id. \`revision\`: + 1 on every change. A table an
-- older LRS ignores.
CREATE TABLE IF NOT EXISTS saved_reports (
  id TEXT PRIMARY KEY,
  store INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  name TEXT NOT NULL,
  definition TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS saved_reports_store ON saved_reports (store, name);

-- The console's sign-in sessions (src/console/sso/): keyed by the SHA-256
-- of the cookie's value, never the value. A table an older LRS ignores.
CREATE TABLE IF NOT EXISTS console_sessions (
  id_hash TEXT PRIMARY KEY,
  data TEXT NOT NULL,
  created_ms INTEGER NOT NULL,
  seen_ms INTEGER NOT NULL
);
`

// The index file's own table, made last when the file is built (buildIndexFile):
// a file without it has not been built yet.
const INDEX_COPY_TABLE = `
-- In the index file: the last switch of the recent buffers whose full
-- buffer has been copied into the middle level whole, and how far the
-- copy of the next one has got (the last term row, id and dictionary key
-- copied; NULL: none yet), kept with each slice copied: a copy cut short goes on from
-- there, since what it copied before may have moved on from the middle
-- level meanwhile.
CREATE TABLE IF NOT EXISTS idx.index_copy (
  only INTEGER PRIMARY KEY CHECK (only = 0),
  generation INTEGER NOT NULL,
  copied_term INTEGER,
  copied_seq INTEGER,
  copied_id BLOB,
  copied_key BLOB
);`

// Version 15: the reports' rollups (report-rollups.js), counted from the
// statements stored before; an older LRS would store statements without
// counting them. Version 12: a store can be deleted (stores.deleted_at, purged_at), have
// a retention (stores.retention_days), and
// documents know their store (\`store\`), which a store's deletion finds
// them by (an older LRS would write documents without it). Version 11: stores. Statements and credentials have the number of
// their store (\`store\`; NULL and 0: the default store), and the other
// stores' keys are qualified with it; an older LRS would show every
// store's statements to the default store's credentials. Version 10: the term dictionary in levels (TERM_DICTIONARY), `terms`
// without its UNIQUE index; an older LRS would not find new terms. Version 9: the index levels above the recent one in the index file
// (open.js), moved there from the database file; index_recent counts the
// switches of the buffers, and how far a copy has got is in the index
// file (index_copy). An older LRS would read neither. Version 8: the second recent buffer (recent2_terms, recent2_ids) and
// index_recent; an older LRS would not read that buffer. Version 7: statement bodies may be BLOBs (body-codec.js; an older LRS
// would return the bytes), the index levels level2 and level3, and
// index_levels, counted from middle_ids. Version 6: hourly_totals and hourly_terms, counted from the statements
// stored before (countStatementsByHour). Version 5: stored_ms, the stored time of a statement imported past its
// own millisecond, which holds 2,048 (write-statements.js, insertStored); NULL
// for every other statement. Version 4: middle_terms and middle_ids
// between the recent and the big tables (an older LRS would not read
// them: it refuses the file). Version
// 3: ids in statement_ids and recent_ids instead of a UNIQUE
// column of statements, new term rows in recent_terms (an older LRS would
// not read them: it refuses the file). Version 2: documents know their agent (State, Agent Profile), for agent
// erasure. Documents stored before have none and are not found by it.
const AFTER_COLUMNS = `
CREATE INDEX IF NOT EXISTS documents_store ON documents (store) WHERE store IS NOT NULL;
CREATE INDEX IF NOT EXISTS documents_agent ON documents (agent) WHERE agent IS NOT NULL;
CREATE INDEX IF NOT EXISTS statements_stored_ms ON statements (stored_ms, seq) WHERE stored_ms IS NOT NULL;
-- The targeted statements (StatementRefs, Communication 2.1.3.s3) of each
-- store: a store beside one with many finds its own (often none) without
-- walking the other's.
CREATE INDEX IF NOT EXISTS statements_referenced_by_store ON statements (store, seq) WHERE referenced = 1;
`

// Version 12: documents know their store. Those of version 11's stores
// but the default one are State and Agent Profile documents, whose agent
// says the store (store-keys.js, \`s<n>|\`), and Activity Profile
// documents, whose store is in nothing stored (their scope is a hash):
// those keep NULL, and a deletion of their store leaves them (no request
// of any other store finds them: their keys are their store's).
function addDocumentStores (db) {
  db.exec('ALTER TABLE documents ADD COLUMN store INTEGER')
  db.exec("UPDATE documents SET store = CAST(substr(agent, 2, instr(agent, '|') - 2) AS INTEGER) WHERE agent GLOB 's[0-9]*|*'")
}

// Version 2 keeps agents in the terms dictionary as hashes (terms.js).
function hashAgentTerms (db) {
  const rows = db.prepare("SELECT id, term FROM terms WHERE substr(term, 1, 2) IN ('a:', 'r:', 'u:')").all()
  const update = db.prepare('UPDATE terms SET term = ? WHERE id = ?')
  for (const r of rows) update.run(r.term.slice(0, 2) + hashedAgent(r.term.slice(2)), r.id)
}

// Version 3: the statements table again without the UNIQUE id (SQLite
// cannot drop that index), and its ids into statement_ids. Copies every
// statement once: a few seconds per 100,000.
function moveIdsOutOfStatements (db) {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('statements').join(', ')
  db.exec(`ALTER TABLE statements RENAME TO statements_v2;
    ${STATEMENTS_TABLE.replace('statements', 'statements_v3')};
    INSERT INTO statements_v3 (${columns}) SELECT ${columns} FROM statements_v2 ORDER BY seq;
    DROP TABLE statements_v2;
    ALTER TABLE statements_v3 RENAME TO statements;`)
}

// The hourly counters (hourly_totals, hourly_terms): an hour is stored
// ms / HOUR_MS, and the terms counted are those of these kinds (terms.js):
// verbs, object activities, authorities, and stores (a store's statements
// per hour; the default store's are the total less the others').
const HOUR_MS = 3600000
const COUNTED_KINDS = ['v:', 'o:', 'u:', 's:']

// Version 6: the hourly counters of the statements already stored; reads
// every statement once (the upgrade of a store of 1 M takes some seconds).
const HOUR_OF = `coalesce(s.stored_ms, s.seq / ${SHIFT}) / ${HOUR_MS}` // integer division: seq.js's storedMsOf
function countStatementsByHour (db) {
  db.exec(`DELETE FROM hourly_totals; DELETE FROM hourly_terms;
    INSERT INTO hourly_totals (hour, count) SELECT ${HOUR_OF} AS hour, count(*) FROM statements s GROUP BY 1;
    INSERT INTO hourly_terms (hour, term, count)
      SELECT ${HOUR_OF} AS hour, j.value AS term, count(*) FROM statements s, json_each(s.term_ids) j
      JOIN terms t ON t.id = j.value WHERE substr(t.term, 1, 2) IN (${COUNTED_KINDS.map((k) => `'${k}'`).join(', ')}) GROUP BY 1, 2;`)
}

// Version 10: `terms` again without the UNIQUE index on its strings
// (SQLite cannot drop it): copied in id order, an append.
function dropTermStringIndex (db) {
  db.exec(`ALTER TABLE terms RENAME TO terms_v9;
    CREATE TABLE terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL);
    INSERT INTO terms (id, term) SELECT id, term FROM terms_v9 ORDER BY id;
    DROP TABLE terms_v9;`)
}

// The dictionary from `terms` (TERM_DICTIONARY), every term in the big
// level: at the upgrade to version 10 and whenever the index file is
// built, since it is derived from `terms` as the index is from the
// statements. Sorted on disk.
function buildTermDictionary (db) {
  for (const buffer of RECENT_BUFFERS) db.exec(`DELETE FROM main.${buffer.dict}`)
  for (const level of UPPER_LEVELS) db.exec(`DELETE FROM idx.${level.dict}`)
  db.exec(`INSERT INTO idx.${UPPER_LEVELS.at(-1).dict} (key, id) SELECT term_key(term), id FROM main.terms ORDER BY 1`)
}

// Whether the dictionary has the newest term (TERM_DICTIONARY). A commit
// over both files is atomic in each file, not across them: a stop between
// the database file's commit and the index file's, at the upgrade to
// version 10 or while the dictionary was being built, leaves `terms` with
// no keys for its terms, which the next start builds again. The writer
// adds a term's row and its key in one transaction of the database file,
// so outside those the newest term always has its key.
function dictionaryWhole (db) {
  const newest = db.prepare('SELECT id, term FROM main.terms ORDER BY id DESC LIMIT 1').get()
  if (!newest) return true
  if (!tableIn(db, 'idx', UPPER_LEVELS.at(-1).dict) || !tableIn(db, 'main', RECENT_BUFFERS[0].dict)) return false
  return db.prepare(DICT_TABLES.map((t) => `SELECT 1 FROM ${t} WHERE key = term_key(@term) AND id = @id`).join(' UNION ALL ')).get(newest) !== undefined
}

const tableIn = (db, schema, name) => db.prepare(`SELECT 1 FROM ${schema}.sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined
const indexIn = (db, name) => db.prepare("SELECT 1 FROM main.sqlite_master WHERE type = 'index' AND name = ?").get(name) !== undefined
const TARGETED_INDEX = 'statements_referenced_by_store'

// The index file (open.js), when it has not been built: from the index
// tables of a database file older than version 9, moved (already in key
// order: each is copied as it is read), or else from the statements
// themselves (a new store; an index file lost or removed, which is how
// it is mended). Inside the caller's transaction: the database file
// commits first, so a stop between the two commits leaves an index file
// that has not been built, and the next start builds it from the
// statements. Returns what it did: null, or { from: 'tables' |
// 'statements', statements }.
function buildIndexFile (db) {
  if (tableIn(db, 'idx', 'index_copy')) return null
  const moved = UPPER_LEVELS.some((level) => tableIn(db, 'main', level.terms) || tableIn(db, 'main', level.ids))
  // for the log line; from the hourly counters: a count(*) would read every page of the statements
  const statements = db.prepare('SELECT coalesce(sum(count), 0) FROM hourly_totals').pluck().get()
  const recentColumns = db.prepare("SELECT name FROM pragma_table_info('index_recent', 'main')").pluck().all()
  let copied = [null, null, null]
  if (moved) {
    for (const level of UPPER_LEVELS) {
      if (tableIn(db, 'main', level.terms)) db.exec(`INSERT INTO idx.${level.terms} (term, seq, verb) SELECT term, seq, verb FROM main.${level.terms} ORDER BY term, seq; DROP TABLE main.${level.terms};`)
      if (tableIn(db, 'main', level.ids)) db.exec(`INSERT INTO idx.${level.ids} (id, seq) SELECT id, seq FROM main.${level.ids} ORDER BY id; DROP TABLE main.${level.ids};`)
    }
    // counted since version 7; before, the middle level was the only one between
    if (tableIn(db, 'main', 'index_levels')) db.exec('INSERT INTO idx.index_levels (level, statements) SELECT level, statements FROM main.index_levels; DROP TABLE main.index_levels;')
    else db.exec(`INSERT INTO idx.index_levels (level, statements) SELECT 1, count(*) FROM idx.${UPPER_LEVELS[0].ids}`)
    // version 8 kept how far the full recent buffer had been copied here
    if (recentColumns.includes('copied_term')) copied = db.prepare('SELECT copied_term, copied_seq, copied_id FROM main.index_recent').raw().get()
  } else {
    // Every statement's rows into the big tables; the recent buffers are
    // emptied (their rows are among them). Sorted on disk, not in memory:
    // fifteen rows a statement.
    db.pragma('temp_store = FILE')
    try {
      for (const buffer of RECENT_BUFFERS) db.exec(`DELETE FROM main.${buffer.terms}; DELETE FROM main.${buffer.ids};`)
      const [terms, ids] = [UPPER_LEVELS.at(-1).terms, UPPER_LEVELS.at(-1).ids]
      db.exec(`INSERT OR IGNORE INTO idx.${terms} (term, seq, verb) SELECT j.value, s.seq, s.verb FROM main.statements s, json_each(s.term_ids) j ORDER BY 1, 2;
        INSERT INTO idx.${ids} (id, seq) SELECT id, seq FROM main.statements ORDER BY id;`)
    } finally {
      db.pragma('temp_store = MEMORY')
    }
  }
  for (const column of ['copied_term', 'copied_seq', 'copied_id']) if (recentColumns.includes(column)) db.exec(`ALTER TABLE main.index_recent DROP COLUMN ${column}`)
  // a full buffer is copied (again) into the middle level
  const full = RECENT_BUFFERS[1 - db.prepare('SELECT active FROM main.index_recent').pluck().get()]
  const waiting = db.prepare(`SELECT EXISTS (SELECT 1 FROM main.${full.ids}) OR EXISTS (SELECT 1 FROM main.${full.terms})`).pluck().get() === 1
  db.exec('UPDATE main.index_recent SET generation = ' + (waiting ? 1 : 0))
  db.exec(INDEX_COPY_TABLE)
  db.prepare('INSERT INTO idx.index_copy (only, generation, copied_term, copied_seq, copied_id) VALUES (0, 0, ?, ?, ?)').run(...(waiting ? copied : [null, null, null]))
  return { from: moved ? 'tables' : 'statements', statements }
}

// The processes of one LRS start together (the writer and every worker):
// one makes or upgrades the schema, in a transaction that holds both
// files' write locks, and the others wait for it, for as long as an
// upgrade or a build of the index file may take (about 9 s per million
// statements on 2 cores) rather than failing after the usual 5 s. A store
// that is up to date is not locked at all.
const SCHEMA_WAIT_MS = 30 * 60000

function makeSchema (db, logger) {
  // (a table added without a new version, such as forwarders, is made by the schema's script)
  if (db.pragma('user_version', { simple: true }) === VERSION && tableIn(db, 'idx', 'index_copy') && tableIn(db, 'main', 'forwarders') && tableIn(db, 'main', 'saved_reports') && tableIn(db, 'main', 'report_funnel_hours') && dictionaryWhole(db) && indexIn(db, TARGETED_INDEX)) return
  const busy = db.pragma('busy_timeout', { simple: true })
  const started = Date.now()
  db.pragma(`busy_timeout = ${SCHEMA_WAIT_MS}`)
  try {
    db.exec('BEGIN IMMEDIATE')
    // an upgrade of a large store takes a while (docs/operations.md): the
    // log says why the start waits, and when it ended
    const from = db.pragma('user_version', { simple: true })
    const upgrading = from > 0 && from < VERSION
    if (upgrading) {
      logger.info({ from, to: VERSION }, 'upgrading the SQLite store')
      flushNow(logger)
    }
    const built = ensureSchema(db)
    db.exec('COMMIT')
    if (built && built.statements) logger.info({ from: built.from, statements: built.statements, ms: Date.now() - started }, 'SQLite index file built')
    if (upgrading) logger.info({ from, to: VERSION, ms: Date.now() - started }, 'SQLite store upgraded')
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK')
    db.pragma(`busy_timeout = ${busy}`)
  }
}

// Creates what is missing; refuses a file made by a newer version.
// Returns what buildIndexFile did.
function ensureSchema (db) {
  const version = db.pragma('user_version', { simple: true })
  if (version > VERSION) throw new Error(`the database file has schema version ${version}; this LRS knows ${VERSION}`)
  const upgradeIds = version > 0 && version < 3 && db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'statements'").get() !== undefined
  if (upgradeIds) moveIdsOutOfStatements(db)
  const termsIndexed = db.prepare("SELECT 1 FROM main.sqlite_master WHERE type = 'index' AND tbl_name = 'terms'").get() !== undefined
  if (termsIndexed) dropTermStringIndex(db)
  db.exec(DDL)
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck()
  if (!columns.all('documents').includes('agent')) db.exec('ALTER TABLE documents ADD COLUMN agent TEXT')
  if (!columns.all('statements').includes('stored_ms')) db.exec('ALTER TABLE statements ADD COLUMN stored_ms INTEGER')
  // when the credential was last used, to within a minute (credential-store.js); NULL: never. A column an
  // older LRS ignores, so no new version.
  if (!columns.all('credentials').includes('last_used')) db.exec('ALTER TABLE credentials ADD COLUMN last_used INTEGER')
  // version 11: stores; added without rewriting a row (every row is the default store's)
  if (!columns.all('statements').includes('store')) db.exec('ALTER TABLE statements ADD COLUMN store INTEGER')
  if (!columns.all('credentials').includes('store')) db.exec('ALTER TABLE credentials ADD COLUMN store INTEGER NOT NULL DEFAULT 0')
  db.prepare("INSERT OR IGNORE INTO stores (number, id, name, created_at) VALUES (0, 'default', 'Default store', ?)").run(Date.now())
  // version 12: deleting stores
  if (!columns.all('stores').includes('deleted_at')) db.exec('ALTER TABLE stores ADD COLUMN deleted_at INTEGER; ALTER TABLE stores ADD COLUMN purged_at INTEGER; ALTER TABLE stores ADD COLUMN purge_terms TEXT; ALTER TABLE stores ADD COLUMN retention_days INTEGER')
  if (!columns.all('documents').includes('store')) addDocumentStores(db)
  // a store's own upstreams: a column an older LRS ignores (it forwards none of them), so no new version
  if (!columns.all('stores').includes('forward_urls')) db.exec('ALTER TABLE stores ADD COLUMN forward_urls TEXT')
  // version 13: the default store's statements get the store term once
  // other stores exist (store-terms.js). For a file that had stores before,
  // the last seq before them is every seq so far (its statements of every
  // store are found by the table up to it). An older LRS would write the
  // default store's statements without the term, where queries would miss
  // them: it refuses the file.
  db.prepare(`INSERT INTO settings (name, value) SELECT '${DEFAULT_TERM_FROM}', coalesce((SELECT max(seq) FROM statements), 0)
    WHERE EXISTS (SELECT 1 FROM stores WHERE number > 0) ON CONFLICT (name) DO NOTHING`).run()
  // version 14: how mboxes are keyed (agent-keys.js). A file of an older
  // version that holds statements or documents has keys of the whole address
  // in lower case in its index and documents, and keeps them: 'whole'. An
  // older LRS would key a new file's mboxes so: it refuses the file.
  db.prepare(`INSERT INTO settings (name, value) SELECT '${MBOX_CASE}', CASE WHEN @older AND (EXISTS (SELECT 1 FROM statements) OR EXISTS (SELECT 1 FROM documents))
    THEN 'whole' ELSE 'domain' END ON CONFLICT (name) DO NOTHING`).run({ older: version > 0 && version < 14 ? 1 : 0 })
  if (!columns.all('index_journal').includes('purge')) db.exec('ALTER TABLE index_journal ADD COLUMN purge TEXT')
  // VERB_IN_TERM_ROWS: NULL in the rows written before, and in those an older LRS writes (it ignores the column).
  for (const table of TERM_TABLES) if (!columns.all(table).includes('verb')) db.exec(`ALTER TABLE ${table} ADD COLUMN verb INTEGER`)
  db.exec(AFTER_COLUMNS)
  if (version === 1) hashAgentTerms(db)
  if (version > 0 && version < 6) countStatementsByHour(db)
  if (tableIn(db, 'idx', 'index_copy') && !db.prepare("SELECT name FROM pragma_table_info('index_copy', 'idx')").pluck().all().includes('copied_key')) db.exec('ALTER TABLE idx.index_copy ADD COLUMN copied_key BLOB')
  // the targeted statements by store (an index an older LRS keeps up too,
  // so no new version; it makes the one by seq alone again, unused)
  db.exec('DROP INDEX IF EXISTS statements_referenced')
  if (!columns.all('index_recent').includes('generation')) db.exec('ALTER TABLE index_recent ADD COLUMN generation INTEGER NOT NULL DEFAULT 0')
  const built = buildIndexFile(db)
  if (built || (version > 0 && version < 10) || !dictionaryWhole(db)) buildTermDictionary(db)
  if (version > 0 && version < 15) {
    useStoredMboxCase(db) // the keys the rollups' learners are
    buildReportRollups(db, termReader(db, { dictTables: DICT_TABLES }))
  }
  if (upgradeIds) db.exec(`INSERT OR IGNORE INTO idx.${UPPER_LEVELS.at(-1).ids} (id, seq) SELECT id, seq FROM statements ORDER BY id`)
  if (version < VERSION) db.pragma(`user_version = ${VERSION}`)
  return built
}

// Keys mboxes in this process as the file does (agent-keys.js): what the
// writer works out of stored statements (the reports' rollups) must key
// them as the workers did.
function useStoredMboxCase (db) {
  const mode = db.prepare('SELECT value FROM settings WHERE name = ?').pluck().get(MBOX_CASE)
  if (mode) useMboxCase(mode)
}

module.exports = { ensureSchema, makeSchema, useStoredMboxCase, MBOX_CASE, LEVELS, RECENT_BUFFERS, UPPER_LEVELS, TERM_TABLES, ID_TABLES, DICT_TABLES, SEQ_OF_ID, HOUR_MS, COUNTED_KINDS }
