'use strict'

// The trusted bulk loader behind `npm run import`: statements from files
// (NDJSON or a JSON array), each validated like a POST, stored with the id,
// `stored` and `authority` they carry (statements without them get the time
// of the import and the import authority). Idempotent: a statement whose id
// is stored already is left as it is (reported when the stored one
// differs). Resumable: after each stored chunk the file offset is kept in a
// checkpoint, and the next run of the same file starts there.
//
// Speed: chunks are validated here while the previous ones are written
// (on SQLite by the writer thread), so the import runs close to the
// engine's own insert rate: 88 % of it at 50,000 statements and 94 % at
// 200,000 on two cores (bench/bulk-load.js), where this thread is the
// limit and the two threads slow each other.

const { toRecord } = require('../resources/statements/statement-record')
const { storageRecord, unqualify } = require('../stores/store-keys')
const { withoutMembers } = require('../validation/json-scan')
const { areEquivalent } = require('../resources/statements/equivalence')
const { detectFormat, statementItems } = require('./statement-file')
const { isJsonObject } = require('../lib/json-object')

// Measured on two cores: 2,000 a chunk was 2 % faster than 1,000 (fewer
// hand-overs to the writer), 500 with four in flight 6 % slower.
const CHUNK = 2000
const WRITES_IN_FLIGHT = 2

// The text of one statement in a file may be this many times as long as a
// stored statement may be (indentation, escapes): longer ones are skipped
// while reading, not held in memory.
const ITEM_FACTOR = 4
const itemLimit = (limits) => ITEM_FACTOR * limits.maxStatementBytes

function xapiVersionOf (statement) {
  return typeof statement.version === 'string' && statement.version.startsWith('2.') ? '2.0.0' : '1.0.3'
}

// The record of one item, or { reason } when it cannot be stored.
function recordOf (item, { validator, importAuthority, now, limits, store = 0 }) {
  if (item.truncated) return { reason: 'the file ends inside this statement' }
  if (item.oversized) return { reason: `longer than ${itemLimit(limits)} bytes of text (${ITEM_FACTOR} times LRS_MAX_STATEMENT_BYTES)` }
  let statement
  try {
    statement = JSON.parse(item.text)
  } catch {
    return { reason: 'not valid JSON' }
  }
  if (!isJsonObject(statement)) return { reason: 'not a JSON object' }
  const xapiVersion = xapiVersionOf(statement)
  let stored = now
  let own
  try {
    own = ownText(statement, item.text, limits) // and the depth and string limits of a POST
    validator.validateStatement(statement, xapiVersion)
    if (!statement.id) throw new Error('statement has no id (an import keeps ids; add one)')
    if (statement.stored !== undefined) {
      stored = new Date(Date.parse(statement.stored))
      if (Number.isNaN(stored.getTime())) throw new Error('stored is not a timestamp')
      // A store orders statements by stored, and on SQLite a later POST is
      // never stored before the newest statement: one imported from the
      // future would date every later one there. (From a source whose
      // clock runs ahead: import the file again once that time has come.)
      if (stored > now) throw new Error('stored is later than the start of the import')
      // (and SQLite's order key counts milliseconds from 1970)
      if (stored.getTime() < 0) throw new Error('stored is before 1970')
    }
  } catch (err) {
    return { reason: err.message }
  }
  const authority = statement.authority || importAuthority
  const { stored: _, authority: __, ...rest } = statement
  const record = toRecord(rest, { authority, xapiVersion }, own ?? undefined)
  if (Buffer.byteLength(record.body) > limits.maxStatementBytes) return { reason: `the statement is larger than ${limits.maxStatementBytes} bytes (LRS_MAX_STATEMENT_BYTES)` }
  record.stored = stored
  return { record: storageRecord(record, store) }
}

// The statement's text without the properties the store keeps apart (null
// when they cannot be cut out of it), so that toRecord keeps the text
// rather than serialising the statement again (about a fifth of an
// import's CPU). The same pass checks the limits and that no name is
// given twice in one object, as for a POST (throws otherwise).
function ownText (statement, text, limits) {
  const apart = []
  if (statement.stored !== undefined) apart.push('stored')
  if (statement.authority !== undefined) apart.push('authority')
  return withoutMembers(text, apart, { ...limits, parsed: statement })
}

// files: paths. Returns { files: [{ file, stored, existing, rejected }], rejects: [...] }.
// limits: { maxDepth, maxStringLength, maxStatementBytes } as for POST.
// store: the number of the store they go to (0, the default one).
async function importFiles (files, { storage, validator, importAuthority, limits, checkpoints, onProgress = () => {}, onReject = () => {}, store = 0 }) {
  const summary = []
  for (const file of files) summary.push(await importFile(file, { storage, validator, importAuthority, limits, checkpoints, onProgress, onReject, store }))
  return summary
}

async function importFile (file, { storage, validator, importAuthority, limits, checkpoints, onProgress, onReject, store }) {
  const format = await detectFormat(file)
  const checkpoint = await checkpoints.load(file)
  const base = { file, format, resumedAt: checkpoint.offset, stored: 0, existing: 0, rejected: 0, ...checkpoint.counts }
  onProgress({ file, offset: checkpoint.offset, stored: base.stored, existing: base.existing, rejected: base.rejected })
  const items = statementItems(file, { format, fromOffset: checkpoint.offset, maxItemBytes: itemLimit(limits) })
  const counts = await importItems(items, {
    storage,
    validator,
    importAuthority,
    limits,
    store,
    counts: base,
    onReject: (r) => onReject({ file, ...r }),
    // after each stored chunk: where the next run starts, and the progress up to there
    async onStored (end, { stored, existing, rejected }) {
      if (end !== null) await checkpoints.save(file, { offset: end, counts: { stored, existing, rejected } })
      onProgress({ file, offset: end, stored, existing, rejected })
    }
  })
  await checkpoints.done(file)
  return counts
}

// The statements of `items` (statement-file.js) stored, chunk by chunk, in
// the store numbered `store`. `counts` ({ stored, existing, rejected }) go
// on from there; `onStored(end, counts)` after each chunk is stored, `end`
// just past its last item; `onReject({ index, offset, line, reason })` (line: NDJSON's, from 1). Returns
// the counts.
async function importItems (items, { storage, validator, importAuthority, limits, store = 0, counts = { stored: 0, existing: 0, rejected: 0 }, onReject = () => {}, onStored = async () => {} }) {
  let settled = Promise.resolve() // the last chunk's results, checked and recorded
  const writes = [] // chunks being written, oldest first
  let chunk = []
  const seen = new Set()

  // Checks one chunk's insert (a taken id must hold the same statement),
  // then reports its end. `rejectedBefore`: rejections up to `end` when
  // the chunk was cut (the reading runs ahead).
  async function settle (chunkItems, taken, end, rejectedBefore) {
    let rejected = rejectedBefore
    let different = 0 // taken ids holding another statement: rejected, not existing
    const records = chunkItems.map((i) => i.record)
    if (taken.length) {
      const stored = await storage.statements.findBodies(taken)
      const byId = new Map(records.map((r) => [r.id, r]))
      for (const id of taken) {
        const row = stored.get(id)
        const record = byId.get(id)
        if (row && (row.body === record.body || areEquivalent(JSON.parse(row.body), JSON.parse(record.body), { xapiVersion: record.xapiVersion }))) continue
        counts.rejected++
        rejected++
        different++
        const item = chunkItems.find((i) => i.record === record)
        onReject({ index: item.index, offset: item.offset, line: item.line, reason: `a different statement with id ${unqualify(id)} is stored` })
      }
    }
    counts.stored += records.length - taken.length
    counts.existing += taken.length - different
    await onStored(end, { stored: counts.stored, existing: counts.existing, rejected })
  }

  // Starts a chunk's insert at once, so the engine always has the next
  // one queued (the SQLite writer then commits queued chunks together);
  // results are settled in order. Waits while WRITES_IN_FLIGHT chunks
  // are being written, which bounds memory.
  async function flush (chunkItems, end) {
    const records = chunkItems.map((i) => i.record)
    const inserting = records.length ? storage.statements.insertStored(records) : Promise.resolve([])
    inserting.catch(() => {}) // observed through `settled`
    const rejectedBefore = counts.rejected
    settled = settled.then(async () => settle(chunkItems, await inserting, end, rejectedBefore))
    // a failed chunk stops the import at the next flush (or at the end)
    writes.push(settled.then(() => null, (err) => err))
    if (writes.length > WRITES_IN_FLIGHT) {
      const failure = await writes.shift()
      if (failure) throw failure
    }
  }

  const now = new Date()
  let end = null // just past the last item read
  for await (const item of items) {
    end = item.end
    const { record, reason } = recordOf(item, { validator, importAuthority, now, limits, store })
    let why = reason
    if (record && seen.has(record.id)) why = `statement id ${unqualify(record.id)} appears earlier in this chunk`
    if (why) {
      counts.rejected++
      onReject({ index: item.index, offset: item.offset, line: item.line, reason: why })
      continue
    }
    seen.add(record.id)
    chunk.push({ record, index: item.index, offset: item.offset, end: item.end, line: item.line })
    if (chunk.length === CHUNK) {
      await flush(chunk, end)
      chunk = []
      seen.clear()
    }
  }
  await flush(chunk, end)
  await settled
  return counts
}

module.exports = { importFiles, importItems, itemLimit }
