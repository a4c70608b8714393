'use strict'

const DUPLICATE_KEY = 11000

function writeErrorsOf (err) {
  return [].concat(err.writeErrors || (err.result && err.result.writeErrors) || [])
}

// The per-operation errors of an unordered bulk write when every one of
// them is a duplicate key; null for anything else — including a bulk error
// that lists no per-operation errors (lost connection, write concern
// failure): then nothing is known to be written.
function onlyDuplicateKeyErrors (err) {
  const list = writeErrorsOf(err)
  if (!list.length || err.writeConcernError || list.some((e) => (e.code ?? e.err?.code) !== DUPLICATE_KEY)) return null
  return list
}

// Unordered insertMany that reports the _ids which already existed instead
// of failing on them. Anything else rethrows.
async function insertManyReportingDuplicates (collection, docs) {
  if (!docs.length) return []
  try {
    await collection.insertMany(docs, { ordered: false })
    return []
  } catch (err) {
    if (!writeErrorsOf(err).length && err.code === DUPLICATE_KEY && docs.length === 1) return [docs[0]._id]
    const duplicates = onlyDuplicateKeyErrors(err)
    if (!duplicates) throw err
    return duplicates.map((e) => docs[e.index]._id)
  }
}

module.exports = { insertManyReportingDuplicates, onlyDuplicateKeyErrors, DUPLICATE_KEY }
