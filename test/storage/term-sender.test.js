'use strict'

// What a worker sends the SQLite writer for a term (terms.js, termSender):
// the id of a stored term, nothing for one not stored (it then goes as
// its string). A term found unknown is not looked up again for a while,
// and is then found once stored; a query's lookup (termReader) never
// takes that shortcut.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { openDatabase } = require('../../src/storage/sqlite/open')
const { ensureSchema } = require('../../src/storage/sqlite/schema')
const { termSender, termReader } = require('../../src/storage/sqlite/terms')
const { ENGINE } = require('../helpers/lrs')

test('a worker sends the ids of stored terms, and the string of a term stored only since it last looked, until its look expires', { skip: ENGINE !== 'sqlite' && 'the term dictionary is the sqlite engine\'s' }, (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-term-sender-'))
  const db = openDatabase(dir)
  t.after(() => { db.close(); fs.rmSync(dir, { recursive: true, force: true }) })
  ensureSchema(db)
  const store = (term) => db.prepare('INSERT INTO terms (term) VALUES (?) RETURNING id').pluck().get(term)
  const known = store('v:http://example.com/verbs/known')
  let clock = 1000000
  const sent = termSender(db, { now: () => clock })
  const read = termReader(db)
  assert.equal(sent('v:http://example.com/verbs/known'), known)
  assert.equal(sent('g:new-registration'), undefined)
  const later = store('g:new-registration')
  clock += 4000
  assert.equal(sent('g:new-registration'), undefined, 'within 5 s the unknown answer stands: the string goes, which the writer resolves')
  assert.equal(read('g:new-registration'), later, 'a query looks it up at once')
  clock += 1500
  assert.equal(sent('g:new-registration'), later, 'after 5 s it is looked up again, and found')
  assert.equal(sent('v:http://example.com/verbs/known'), known)
})
