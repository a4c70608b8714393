'use strict'

const DUPLICATE_KEY = 11000

// Unordered insertMany that reports the _ids which already existed instead
// of failing on them. Anything else rethrows — including a bulk error that
// lists no per-document errors (lost connection, write concern failure):
// then nothing is known to be stored.
async function insertManyReportingDuplicates (collection, docs) {
  if (!docs.length) return []
  try {
    await collection.insertMany(docs, { ordered: false })
    return []
  } catch (err) {
    const list = [].concat(err.writeErrors || (err.result && err.result.writeErrors) || [])
    if (!list.length && err.code === DUPLICATE_KEY && docs.length === 1) return [docs[0]._id]
    if (!list.length || err.writeConcernError || list.some((e) => (e.code ?? e.err?.code) !== DUPLICATE_KEY)) throw err
    return list.map((e) => docs[e.index]._id)
  }
}

module.exports = { insertManyReportingDuplicates, DUPLICATE_KEY }
