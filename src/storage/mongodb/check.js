'use strict'

// `lrs check` on MongoDB: every collection of the LRS exists and passes the
// server's own `validate` (its documents and index entries agree), and
// every index the LRS ensures at start (indexes.js) is there with its key,
// so no query falls back to a collection scan. Read-only: `validate`
// without `full` takes no exclusive lock on MongoDB 4.4 and later, so it
// runs beside a live LRS. FerretDB, the tests' stand-in, has no secondary
// indexes by design (indexes.js) and may not implement `validate`: what a
// server cannot check is said, not counted as a problem.

const { MongoClient } = require('mongodb')
const { COLLECTIONS, INDEXES } = require('./indexes')
const { detectEngine } = require('./connection')

const SERVER_SELECTION_TIMEOUT_MS = 5000
const COMMAND_NOT_FOUND = 59

async function checkCollection (db, name, problems, notes) {
  let result
  try {
    result = await db.command({ validate: name })
  } catch (err) {
    if (err.code === COMMAND_NOT_FOUND) { notes.add('validate is not supported by this server'); return }
    problems.push(`collection ${name} could not be validated: ${err.message}`)
    return
  }
  if (result.valid === false) {
    const said = [...(result.errors || []), ...(result.warnings || [])].slice(0, 5).join('; ')
    problems.push(`collection ${name} is damaged (validate): ${said || 'no details given'}`)
  }
}

function sameKey (a, b) {
  return JSON.stringify(a) === JSON.stringify(b)
}

async function checkIndexes (db, name, wanted, problems) {
  const have = await db.collection(name).listIndexes().toArray()
  for (const index of wanted) {
    const found = have.find((h) => h.name === index.name)
    if (!found) problems.push(`index ${index.name} of ${name} is missing (queries it serves scan the collection; a restart of the LRS creates it)`)
    else if (!sameKey(found.key, index.key)) problems.push(`index ${index.name} of ${name} has key ${JSON.stringify(found.key)}, not ${JSON.stringify(index.key)}`)
  }
}

// { ok, problems: [sentence], summary } for the store of `config`.
async function checkMongoStore (config) {
  const client = new MongoClient(config.mongodbUri, { serverSelectionTimeoutMS: SERVER_SELECTION_TIMEOUT_MS })
  const problems = []
  const notes = new Set()
  try {
    await client.connect()
    const db = client.db(config.mongodbDb)
    const engine = await detectEngine(db)
    const present = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name))
    const missing = COLLECTIONS.filter((name) => !present.has(name))
    if (missing.length === COLLECTIONS.length) {
      problems.push(`database ${config.mongodbDb} has none of the LRS's collections (MONGODB_DB; an LRS creates them at its first start)`)
    } else if (missing.length) {
      problems.push(`collections are missing: ${missing.join(', ')}`)
    }
    for (const name of COLLECTIONS.filter((n) => present.has(n))) await checkCollection(db, name, problems, notes)
    if (engine === 'ferretdb') notes.add('FerretDB: secondary indexes are not used there, not checked')
    else for (const [name, wanted] of Object.entries(INDEXES)) if (present.has(name)) await checkIndexes(db, name, wanted, problems)
    const statements = present.has('statements') ? await db.collection('statements').estimatedDocumentCount() : 0
    const summary = `${engine} database ${config.mongodbDb}: about ${statements} statements; ${present.size} collections${notes.size ? ` (${[...notes].join('; ')})` : ''}`
    return { ok: problems.length === 0, problems, summary }
  } catch (err) {
    problems.push(`the database could not be read: ${err.message}`)
    return { ok: false, problems, summary: '' }
  } finally {
    await client.close()
  }
}

module.exports = { checkMongoStore }
