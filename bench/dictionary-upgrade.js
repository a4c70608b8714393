'use strict'

// How long the upgrade of a SQLite store to schema 10 takes (schema.js,
// TERM_DICTIONARY: `terms` copied without its UNIQUE index, every term's key
// into the dictionary's big level), for a store with the terms of N
// statements of a profile (statement-generator.js). The statements
// themselves do not matter to it: the upgrade reads `terms` only. The
// store is made by this LRS, its dictionary taken back to schema 9's
// shape, and opened again as the LRS opens it (makeSchema).
//
//   node bench/dictionary-upgrade.js [--statements 10000000] [--profile campus]

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { parseArgs } = require('node:util')
const { PROFILES, describeProfile } = require('./statement-generator')
const { openDatabase } = require('../src/storage/sqlite/open')
const { makeSchema, RECENT_BUFFERS, UPPER_LEVELS } = require('../src/storage/sqlite/schema')
const { hashedAgent } = require('../src/storage/sqlite/terms')

const { values: args } = parseArgs({ options: { statements: { type: 'string', default: '10000000' }, profile: { type: 'string', default: process.env.BENCH_PROFILE || 'campus' } } })
const N = Number(args.statements)
const profile = PROFILES[args.profile]
const silent = { info () {} }

// The distinct terms N statements of the profile bring, as terms.js makes them.
function * termsOf () {
  const registrations = profile.statementsPerAttempt === null ? profile.learners : Math.ceil(N / profile.statementsPerAttempt)
  for (let r = 0; r < registrations; r++) yield 'g:' + crypto.randomUUID()
  for (let l = 0; l < Math.min(profile.learners, N); l++) yield 'a:' + hashedAgent(`account:http://lms.example.com|learner-${l}`)
  const activities = describeProfile(args.profile).activities
  for (let a = 0; a < activities; a++) yield `o:http://lms.example.com/courses/course-${Math.floor(a / 300)}/scos/sco-${Math.floor(a / 25) % 12}/interactions/q${a % 25}`
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-dictionary-upgrade-'))
try {
  let db = openDatabase(dir)
  makeSchema(db, silent)
  // schema 9's dictionary: strings under a UNIQUE index, no levels
  for (const buffer of RECENT_BUFFERS) db.exec(`DROP TABLE main.${buffer.dict}`)
  for (const level of UPPER_LEVELS) db.exec(`DROP TABLE idx.${level.dict}`)
  db.exec('DROP TABLE terms; CREATE TABLE terms (id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE); ALTER TABLE idx.index_copy DROP COLUMN copied_key')
  const insert = db.prepare('INSERT INTO terms (term) VALUES (?)')
  let count = 0
  db.exec('BEGIN')
  for (const term of termsOf()) { insert.run(term); count++ }
  db.exec('COMMIT')
  db.pragma('user_version = 9')
  db.pragma('wal_checkpoint(TRUNCATE)')
  db.close()

  db = openDatabase(dir)
  const started = process.hrtime.bigint()
  makeSchema(db, silent)
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  const inDictionary = db.prepare(`SELECT count(*) FROM idx.${UPPER_LEVELS.at(-1).dict}`).pluck().get()
  db.close()
  if (inDictionary !== count) throw new Error(`${inDictionary} terms in the dictionary for ${count}`)
  process.stdout.write(JSON.stringify({ profile: describeProfile(args.profile).text, statements: N, terms: count, upgradeMs: Math.round(ms) }) + '\n')
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}
