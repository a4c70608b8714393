'use strict'

// `lrs migrate`: a whole LRS moved from one storage engine to another
// (SQLite to MongoDB: src/storage/index.js, openMigrationSource and
// openMigrationTarget), everything kept as it was: stores with their
// numbers, retention and upstreams; credentials with their secrets'
// hashes, scopes and stores; statements with their ids, `stored`,
// authority, voiding and StatementRef flags, byte for byte; attachments;
// State, Activity Profile and Agent Profile documents with their ETags,
// content types and times; forwarding entries and dead letters; and the
// settings every worker shares (the `more` cursor key, the token signing
// keys, how mboxes are keyed), so links and tokens handed out before keep
// working.
//
// The move runs in PHASES, each reading its kind in key order (statements
// in stored order). After every chunk written, the target records how far
// it got (its marker), and a move started again goes on from there: every
// write is idempotent (an id found stored is left as it is), so redoing
// the chunk a stop cut short leaves no duplicate. The marker also names
// the source: a database that holds anything else is refused.
//
// Deleted stores keep their records (their numbers are never given
// again); the data of one still being purged is not copied.

const { storedRecord } = require('../resources/statements/statement-record')
const { storageRecord, storeOf } = require('../stores/store-keys')
const { useMboxCase } = require('../resources/agents/agent-keys')

const PHASES = ['settings', 'stores', 'credentials', 'forwarders', 'savedReports', 'documents', 'attachments', 'statements', 'pendingFlags', 'outbox', 'deadLetters']
// Rows a chunk (attachments are up to the request body limit each), and
// chunks written at once. Into FerretDB on 2 cores (20,000 statements, four
// alternations): chunks of 500 to 2,000 within noise of each other (4,000:
// a third slower); two in flight 6,600 statements/s against 5,000 to 5,300
// for one.
const LIMITS = { documents: 500, attachments: 20, statements: 1000, outbox: 2000, deadLetters: 2000 }
const WRITES_IN_FLIGHT = 2
// Chunks past the position recorded that a stop may have left written in
// part (WRITES_IN_FLIGHT, with room for a run that had more in flight).
const UNCERTAIN = 2 * WRITES_IN_FLIGHT
// What every worker of an LRS shares through the settings and means the
// same on any engine: the `more` links' key (server.js), the token
// signing keys (lrs-issuer.js), how mboxes are keyed (agent-keys.js).
const portableSetting = (name) => name === 'more-cursor-key' || name === 'mbox_case' || name.startsWith('token-signing-key:')

const sameSource = (a, b) => a.engine === b.engine && a.createdAt === b.createdAt
const sameFingerprint = (a, b) => JSON.stringify(a) === JSON.stringify(b)

// The phases: `all()` for a kind read at once, or `page(after, limit)`;
// `keep(row)`: whether it is copied (not the data of a deleted store);
// `prepare(rows)`: what `write` takes, made while the previous chunk is
// being written.
function phases (source, target, live) {
  const liveKey = (key) => live.has(storeOf(key))
  return {
    settings: { all: () => source.settings().filter((s) => portableSetting(s.name)), write: (rows) => target.writeSettings(rows) },
    stores: { all: () => source.stores(), write: (rows) => target.writeStores(rows) },
    credentials: { all: () => source.credentials(), keep: (c) => live.has(c.store), write: (rows) => target.writeCredentials(rows) },
    forwarders: { all: () => source.forwarders(), keep: (f) => live.has(f.store), write: (rows) => target.writeForwarders(rows) },
    savedReports: { all: () => source.savedReports(), keep: (r) => live.has(r.store), write: (rows) => target.writeSavedReports(rows) },
    documents: { page: (after, limit) => source.documents({ after, limit }), keep: (d) => d.store === null || live.has(d.store), write: (rows) => target.writeDocuments(rows) },
    attachments: { page: (after, limit) => source.attachments({ after, limit }), keep: (a) => liveKey(a.sha2), write: (rows) => target.writeAttachments(rows) },
    statements: {
      page: (after, limit) => source.statements({ after, limit }),
      keep: (s) => live.has(s.store),
      prepare: statementRecords,
      present: (ids) => target.statementsPresent(ids),
      write: ({ records, voided, referenced }, { present }) => target.writeStatements(records, { voided, referenced, present })
    },
    pendingFlags: { all: () => source.pendingFlags(), keep: (p) => liveKey(p.id), write: (rows) => target.writePendingFlags(rows) },
    outbox: { page: (after, limit) => source.forwarding({ after, limit }), keep: (e) => liveKey(e.statementId), write: (rows) => target.writeForwarding(rows, { dead: false }) },
    deadLetters: { page: (after, limit) => source.forwarding({ dead: true, after, limit }), keep: (e) => liveKey(e.statementId), write: (rows) => target.writeForwarding(rows, { dead: true }) }
  }
}

// The keys of the rows of the UNCERTAIN chunks after `after`.
function uncertainKeys (step, after, limit, keep) {
  const keys = []
  for (let n = 0; n < UNCERTAIN; n++) {
    const page = step.page(after, limit)
    keys.push(...page.filter(keep).map((row) => row.id))
    if (page.length < limit) break
    after = page[page.length - 1].position
  }
  return keys
}

// Records of stored statements for another engine: the body as it was
// stored, the query fields worked out from it again.
function statementRecords (rows) {
  const records = []
  const voided = []
  const referenced = []
  for (const row of rows) {
    const record = storageRecord(storedRecord(JSON.parse(row.body), row), row.store)
    if (record.id !== row.id) throw new Error(`statement ${row.id}: its body names ${record.id}`)
    record.stored = row.stored
    records.push(record)
    if (row.voided) voided.push(row.id)
    if (row.referenced) referenced.push(row.id)
  }
  return { records, voided, referenced }
}

// Moves everything from `source` to `target` (both opened). Resolves
// { resumed: { phase, after } | null, alreadyDone, copied:
// { phase: rows }, seconds: { phase: s } } (this run's). `onPhase(phase,
// { rows, seconds })` after each phase; `onProgress({ phase, rows, total })`
// after each chunk. `hooks.afterWrite(phase, rows)`: tests, after a
// chunk is written and before its position is recorded.
async function migrate ({ source, target, limits = {}, inFlight = WRITES_IN_FLIGHT, onPhase = () => {}, onProgress = () => {}, hooks = {} }) {
  const identity = source.identity()
  const fingerprint = source.fingerprint()
  let marker = await target.marker()
  if (marker && !sameSource(marker.source, identity)) {
    throw new Error(`the database holds a move from another store (${marker.source.file}, begun ${new Date(marker.startedAt).toISOString()}): move into an empty database`)
  }
  if (!marker) {
    const holding = await target.holdsData()
    if (holding) throw new Error(`the database is not empty (its ${holding} hold data) and no move into it was begun: move into an empty database`)
    marker = { source: identity, fingerprint, startedAt: new Date(), checkpoint: { phase: PHASES[0], after: null } }
    await target.saveMarker(marker)
  } else if (!sameFingerprint(marker.fingerprint, fingerprint)) {
    // written since (an LRS ran on it): what was copied may be gone there
    throw new Error(`${identity.file} changed since the move into this database began (${new Date(marker.startedAt).toISOString()}): an LRS wrote to it. Drop the database and move again`)
  }
  const resumed = marker.checkpoint.phase !== PHASES[0] || marker.checkpoint.after !== null ? { ...marker.checkpoint } : null
  const result = { resumed, alreadyDone: Boolean(marker.finishedAt), copied: {}, seconds: {} }
  if (marker.finishedAt) return result

  useMboxCase(source.mboxCase()) // the records' agent keys as the source made them
  const live = new Set(source.stores().filter((s) => !s.deletedAt).map((s) => s.number))
  const steps = phases(source, target, live)
  const total = { statements: fingerprint.statements, documents: fingerprint.documents, attachments: fingerprint.attachments, outbox: fingerprint.outbox, deadLetters: fingerprint.deadLetters }
  const save = (phase, after) => target.saveMarker({ ...marker, checkpoint: { phase, after } })

  for (let p = PHASES.indexOf(marker.checkpoint.phase); p < PHASES.length; p++) {
    const phase = PHASES[p]
    const step = steps[phase]
    const keep = step.keep || (() => true)
    const started = Date.now()
    let rows = 0
    if (step.all) {
      const list = step.all().filter(keep)
      await step.write(list)
      if (hooks.afterWrite) await hooks.afterWrite(phase, list.length)
      rows = list.length
    } else {
      const limit = limits[phase] || LIMITS[phase]
      const resumedHere = p === PHASES.indexOf(marker.checkpoint.phase)
      let after = resumedHere ? marker.checkpoint.after : null
      // up to WRITES_IN_FLIGHT chunks written at once; a chunk's position
      // is recorded once it and every chunk before it are written
      let recorded = Promise.resolve()
      const writing = []
      // After a stop, the chunks that were being written (at most
      // WRITES_IN_FLIGHT past the one recorded) may be there in part: what
      // of them is there is asked once, for all of them (on FerretDB each
      // such look-up reads the whole collection).
      const present = resumedHere && step.present ? await step.present(uncertainKeys(step, after, limit, keep)) : null
      for (;;) {
        const page = step.page(after, limit)
        if (!page.length) break
        const end = page[page.length - 1].position
        const kept = page.filter(keep)
        const input = step.prepare ? step.prepare(kept) : kept
        if (writing.length >= inFlight) await writing.shift()
        const written = step.write(input, { present })
        written.catch(() => {}) // observed through `recorded`
        recorded = recorded.then(async () => {
          await written
          if (hooks.afterWrite) await hooks.afterWrite(phase, kept.length)
          await save(phase, end)
          rows += kept.length
          onProgress({ phase, rows, total: total[phase] })
        })
        recorded.catch(() => {}) // awaited below, or at a later chunk
        writing.push(recorded)
        after = end
        if (page.length < limit) break
      }
      await recorded
    }
    const next = PHASES[p + 1]
    if (next) await save(next, null)
    result.copied[phase] = rows
    result.seconds[phase] = (Date.now() - started) / 1000
    onPhase(phase, { rows, seconds: result.seconds[phase] })
  }
  marker = { ...marker, checkpoint: { phase: 'done', after: null }, finishedAt: new Date() }
  await target.saveMarker(marker)
  return result
}

// Compares every kind in the two storages. The small ones (settings,
// stores, credentials, flags of statements not stored) are read whole on
// both sides; the others are read from the target in one scan (the one
// read of a whole collection FerretDB serves fast), each row looked up by
// its key in the source and compared field by field; with the counts
// (what the source holds, but a deleted store's data) that shows nothing
// missing, nothing more and nothing different. Only when the target holds
// fewer does the source's side get walked, to name the missing ones.
// Resolves [{ kind, source, target, differences, examples }] (`examples`:
// the first few, in words). `onProgress({ kind, rows })`.
async function verifyMigration ({ source, target, limits = {}, onProgress = () => {}, examplesPerKind = 5 }) {
  const live = new Set(source.stores().filter((s) => !s.deletedAt).map((s) => s.number))
  const liveKey = (key) => live.has(storeOf(key))
  const report = []
  const kind = (name) => {
    const entry = { kind: name, source: 0, target: 0, differences: 0, examples: [] }
    report.push(entry)
    entry.differ = (what) => {
      entry.differences++
      if (entry.examples.length < examplesPerKind) entry.examples.push(what)
    }
    return entry
  }
  const ms = (d) => (d ? new Date(d).getTime() : null)
  const same = (a, b) => Buffer.isBuffer(a) ? Buffer.isBuffer(b) && a.equals(b) : JSON.stringify(a) === JSON.stringify(b)
  // pairs: field -> [source value, target value]
  const compare = (entry, what, pairs) => {
    const differing = Object.entries(pairs).filter(([, [a, b]]) => !same(a, b)).map(([field]) => field)
    if (differing.length) entry.differ(`${what}: ${differing.join(', ')} differ`)
  }
  // Each of `rows` found among `found` by key and compared; the keys of `found` not in `rows` are extra.
  const match = (entry, rows, found, keyOf, fields, label) => {
    const byKey = new Map(found.map((f) => [keyOf(f), f]))
    for (const row of rows) {
      const other = byKey.get(keyOf(row))
      if (!other) entry.differ(`${label(row)}: missing`)
      else compare(entry, label(row), fields(row, other))
      byKey.delete(keyOf(row))
    }
    for (const other of byKey.values()) entry.differ(`${label(other)}: only in the target`)
  }

  // A kind read whole on both sides: counted, then matched row by row.
  const compareWhole = (name, rows, found, keyOf, fields, label) => {
    const entry = kind(name)
    Object.assign(entry, { source: rows.length, target: found.length })
    match(entry, rows, found, keyOf, fields, label)
  }

  const portable = source.settings().filter((s) => portableSetting(s.name))
  compareWhole('settings', portable, await target.settings(portable.map((s) => s.name)), (s) => s.name, (a, b) => ({ value: [a.value, b.value] }), (s) => `setting ${s.name}`)

  const storeFields = (a, b) => ({ number: [a.number, b.number], name: [a.name, b.name], createdAt: [ms(a.createdAt), ms(b.createdAt)], deletedAt: [ms(a.deletedAt), ms(b.deletedAt)], ...(!a.deletedAt && { retentionDays: [a.retentionDays, b.retentionDays], forwardUrls: [a.forwardUrls, b.forwardUrls] }) })
  compareWhole('stores', source.stores(), await target.stores(), (s) => s.id, storeFields, (s) => `store ${s.id}`)

  const credentialFields = (a, b) => ({ secretHash: [a.secretHash, b.secretHash], scopes: [a.scopes, b.scopes], store: [a.store, b.store], createdAt: [ms(a.createdAt), ms(b.createdAt)], lastUsedAt: [ms(a.lastUsedAt), ms(b.lastUsedAt)] })
  compareWhole('credentials', source.credentials().filter((c) => live.has(c.store)), await target.credentials(), (c) => c.key, credentialFields, (c) => `credential ${c.key}`)

  const forwarderFields = (a, b) => ({ store: [a.store, b.store], revision: [a.revision, b.revision], definition: [a.definition, b.definition], createdAt: [ms(a.createdAt), ms(b.createdAt)], updatedAt: [ms(a.updatedAt), ms(b.updatedAt)] })
  compareWhole('forwarders', source.forwarders().filter((f) => live.has(f.store)), await target.forwarders(), (f) => f.id, forwarderFields, (f) => `forwarder ${f.id}`)
  const savedReportFields = (a, b) => ({ ...forwarderFields(a, b), name: [a.name, b.name] })
  compareWhole('saved reports', source.savedReports().filter((r) => live.has(r.store)), await target.savedReports(), (r) => r.id, savedReportFields, (r) => `saved report ${r.id}`)

  const pending = kind('pendingFlags')
  const flags = source.pendingFlags().filter((p) => liveKey(p.id))
  const markers = []

  // The kinds read by a scan of the target.
  const kept = source.keptCounts(live)
  const forwardingKey = (e) => `${e.upstream} ${e.statementId}`
  const forwardingFields = (dead) => (a, b) => ({ enqueuedAt: [ms(a.enqueuedAt), ms(b.enqueuedAt)], ...(dead ? { status: [a.status, b.status], reason: [a.reason, b.reason], failedAt: [ms(a.failedAt), ms(b.failedAt)] } : { leaseUntil: [ms(a.leaseUntil), ms(b.leaseUntil)] }) })
  const forwardingLabel = (dead) => (e) => `${dead ? 'dead letter' : 'forwarding entry'} of ${e.statementId} for ${e.upstream}`
  // the outbox and the dead letters: the same rows, `dead` apart
  const forwardingKind = (dead) => ({
    keyOf: forwardingKey,
    lookup: (keys) => source.forwardingByKeys(keys, { dead }),
    keys: (rows) => rows.map((e) => ({ upstream: e.upstream, statementId: e.statementId })),
    keep: (e) => liveKey(e.statementId),
    fields: forwardingFields(dead),
    label: forwardingLabel(dead),
    walk: (after, limit) => source.forwarding({ dead, after, limit })
  })
  const scanned = {
    documents: {
      keyOf: (d) => d.key,
      lookup: (keys) => source.documentsByKeys(keys),
      keep: (d) => d.store === null || live.has(d.store),
      fields: (a, b) => ({ resource: [a.resource, b.resource], scope: [a.scope, b.scope], registration: [a.registration, b.registration], docId: [a.docId, b.docId], agent: [a.agent, b.agent], store: [a.store, b.store], contentType: [a.contentType, b.contentType], etag: [a.etag, b.etag], updated: [ms(a.updated), ms(b.updated)], content: [a.content, b.content] }),
      label: (d) => `${d.resource} document ${d.docId} (key ${d.key})`,
      walk: (after, limit) => source.documents({ after, limit })
    },
    attachments: {
      keyOf: (a) => a.sha2,
      lookup: (keys) => source.attachmentsBySha2(keys),
      keep: (a) => liveKey(a.sha2),
      fields: (a, b) => ({ contentType: [a.contentType, b.contentType], content: [a.body, b.body] }),
      label: (a) => `attachment ${a.sha2}`,
      walk: (after, limit) => source.attachments({ after, limit })
    },
    statements: {
      keyOf: (s) => s.id,
      lookup: (keys) => source.statementsByIds(keys),
      keep: (s) => live.has(s.store),
      // the collection holds the markers of flags for statements not stored too
      skip: (t) => t.marker && markers.push(t),
      fields: (a, b) => ({ body: [a.body, b.body], stored: [ms(a.stored), ms(b.stored)], timestampFromStored: [a.timestampFromStored, b.timestampFromStored], voided: [a.voided, b.voided], referenced: [a.referenced, b.referenced] }),
      label: (s) => `statement ${s.id}`,
      walk: (after, limit) => source.statements({ after, limit })
    },
    outbox: forwardingKind(false),
    deadLetters: forwardingKind(true)
  }
  for (const [name, k] of Object.entries(scanned)) {
    const entry = kind(name)
    entry.source = kept[name]
    let matched = 0
    const met = keySet(entry.source)
    for await (const batch of target.scan(name)) {
      const rows = k.skip ? batch.filter((t) => !k.skip(t)) : batch
      entry.target += rows.length
      const found = k.lookup(k.keys ? k.keys(rows) : rows.map(k.keyOf))
      for (const t of rows) {
        const s = found.get(k.keyOf(t))
        if (!s || !k.keep(s)) entry.differ(`${k.label(t)}: only in the target`)
        else {
          matched++
          met.add(k.keyOf(s))
          compare(entry, k.label(s), k.fields(s, t))
        }
      }
      onProgress({ kind: name, rows: entry.target })
    }
    if (matched < entry.source) {
      entry.differ(`${entry.source - matched} in the source not in the target`)
      nameMissing(entry, k, met, entry.source - matched, limits[name] || LIMITS[name])
    }
  }

  // the markers the statements' scan met
  pending.source = flags.length
  pending.target = markers.length
  match(pending, flags, markers, (p) => p.id, (a, b) => ({ voided: [a.voided, b.voided], referenced: [a.referenced, b.referenced] }), (p) => `flags of statement ${p.id}, not stored`)

  for (const entry of report) delete entry.differ
  return report

  // Walks the source's rows of a kind until the `missing` ones (those the
  // scan did not meet) are named.
  function nameMissing (entry, k, met, missing, limit) {
    let after = null
    for (let named = 0; named < missing;) {
      const page = k.walk(after, limit)
      if (!page.length) return
      after = page[page.length - 1].position
      for (const row of page) {
        if (!k.keep(row) || met.has(k.keyOf(row))) continue
        named++
        if (entry.examples.length < examplesPerKind) entry.examples.push(`${k.label(row)}: missing`)
      }
      if (page.length < limit) return
    }
  }
}

// The keys a scan met, in about 10 bits each (a Bloom filter: of a key it
// says was not met, that is certain; one in about a hundred not met reads as
// met), so that the rows missing from the target are named without holding
// every key or looking each one up there (on FerretDB a find by a key that
// is not there reads the whole collection).
function keySet (expected) {
  const bits = Math.max(1024, expected * 10)
  const words = new Uint32Array(Math.ceil(bits / 32))
  const HASHES = 7
  const positions = (key) => {
    let h1 = 0x811c9dc5
    let h2 = 0x01000193
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i)
      h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0
      h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0
    }
    return Array.from({ length: HASHES }, (_, i) => (h1 + i * ((h2 | 1) >>> 0)) % bits)
  }
  return {
    add (key) { for (const p of positions(key)) words[p >>> 5] |= 1 << (p & 31) },
    has (key) { return positions(key).every((p) => (words[p >>> 5] & (1 << (p & 31))) !== 0) }
  }
}

module.exports = { migrate, verifyMigration, PHASES }
