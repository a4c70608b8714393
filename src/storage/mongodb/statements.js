'use strict'

// Statements on MongoDB. One document per statement:
//   _id            statement id
//   stored         Date, the sort key (ties broken by _id)
//   body           the statement as JSON text, without `stored` (and without
//                  `timestamp` when the LRS set it to stored: `ts` says so);
//                  readers append them. FerretDB rejects keys with dots and
//                  extension keys are IRIs, so the body is text; it is also
//                  what GET returns, unparsed.
//   w              token of the batch write that inserted it
//   confirmed      true once another request was answered on this copy
//   voided         true once a voiding statement targets it
//   voiding        true for voiding statements (which cannot be voided)
//   ref            target id when the object is a StatementRef
//   referenced     true once some StatementRef targets it (for 2.1.4 filters)
//   authorityKey   IFI key of the authority (statements/read/mine)
//   attachments    sha2 of each attachment it declares
//   verb, agents, relAgents, activities, relActivities, registration:
//                  the top-level indexed fields the query parameters need.
//   rh, rl, rg, fL, fC, fP  the hour of its timestamp, its learner, its
//                  groupings, its funnel steps, for reports (report-counts.js)
//
// A voiding statement or a StatementRef may arrive before its target. Its
// flag then goes into a marker document { _id, awaitingStatement: true,
// voided | referenced } that the target replaces when it is stored, keeping
// the flags (Data 2.3.2.s2.b3). Markers have no body and never match
// voided: false, so readers skip them.
//
// The write path reads nothing unless an insert reports ids that are taken.
// Then each request of the batch is all or nothing: a request whose
// statement differs from the stored one fails (409), and what this batch
// inserted for it is removed again — but only copies no other request was
// answered on. A request answered on a copy another batch inserted first
// marks it `confirmed` (atomically, filtered on that batch's `w`), and a
// removal skips confirmed copies, so whichever of the two runs first, no
// acknowledged statement is ever removed (issue: concurrent batches and
// workers). On FerretDB, whose filtered writes are not atomic, both steps
// run under a per-id lock.

const crypto = require('node:crypto')
const { insertManyReportingDuplicates, onlyDuplicateKeyErrors } = require('./insert-many')
const { documentReportFields } = require('./report-counts')
const { statementFilter, matchFilter, storeFilter } = require('./statement-filter')
const { qualify, qualifyAll, unqualify, storeOf } = require('../../stores/store-keys')
const { keyRange } = require('./stores')
const { byId } = require('./by-id')
const { upstreamsFor } = require('../../forwarding/upstreams')
const { referencingThroughTargets } = require('../statement-refs')

const MAX_SETTLE_ROUNDS = 10
const FERRET_UPSERTS = 50 // setFlagsOrMark
const ROW_PROJECTION = { body: 1, stored: 1, ts: 1 }
const SCAN_PROJECTION = { ...ROW_PROJECTION, voided: 1 } // a CSV export leaves voided statements out

// `voided` where the query read it (scan)
function toRow (doc) {
  const row = { id: doc._id, body: doc.body, stored: doc.stored, timestampFromStored: doc.ts === true, position: doc._id }
  if (doc.voided !== undefined) row.voided = doc.voided === true
  return row
}

const HOUR_MS = 3600000

function statementsRepository (db, { queryTimeoutMs, isFerret, locks, hooks, outbox, attachments }) {
  const col = db.collection('statements')
  const read = { maxTimeMS: queryTimeoutMs }
  const ids = byId(col, { isFerret, locks, maxTimeMS: queryTimeoutMs })

  function toDoc (record, stored, w) {
    // the query fields of a store's statement are its own (statement-filter.js)
    const store = record.store
    const q = (value) => qualify(store, value)
    const qAll = (values) => qualifyAll(store, values)
    return {
      _id: record.id,
      stored,
      body: record.body,
      ts: record.timestampFromStored || undefined,
      w,
      voided: false,
      voiding: record.voiding,
      ref: record.ref || undefined,
      referenced: false,
      authorityKey: q(record.authorityKey),
      attachments: record.attachments.length ? record.attachments : undefined,
      verb: q(record.verb),
      agents: qAll(record.agents),
      relAgents: qAll(record.relAgents),
      activities: qAll(record.activities),
      relActivities: qAll(record.relActivities),
      registration: q(record.registration),
      store: store || undefined, // statement-filter.js
      ...documentReportFields(record, stored, store) // rh, rl, rg, fL, fC, fP (report-counts.js)
    }
  }

  // Sets flags on statements, or leaves markers for ids not stored yet.
  // `condition` limits which stored statements take the flags; a stored
  // statement outside it makes the upsert hit its _id, which is ignored.
  // FerretDB 1.24 never answers a bulkWrite of 100 or more upserts
  // (measured: 99 took 3 s, 100 nothing within minutes), so a batch of
  // StatementRefs is sent there FERRET_UPSERTS at a time.
  async function setFlagsOrMark (ids, flags, condition = {}) {
    if (!ids.length) return
    const ops = ids.map((id) => ({
      updateOne: { filter: { _id: id, ...condition }, update: { $set: flags, $setOnInsert: { awaitingStatement: true } }, upsert: true }
    }))
    const size = isFerret() ? FERRET_UPSERTS : ops.length
    for (let i = 0; i < ops.length; i += size) {
      try {
        await col.bulkWrite(ops.slice(i, i + size), { ordered: false })
      } catch (err) {
        if (!onlyDuplicateKeyErrors(err)) throw err
      }
    }
  }

  // Inserts docs; of the ids found taken, those held by markers get the
  // statement with the marker's flags. Returns the ids still taken and the
  // markers replaced (to restore them if the request fails).
  async function insert (docs) {
    const taken = await insertManyReportingDuplicates(col, docs)
    const replaced = new Map()
    if (!taken.length) return { taken, replaced }
    const markers = (await ids.findMany(taken)).filter((d) => d.awaitingStatement === true)
    const docsById = new Map(docs.map((d) => [d._id, d]))
    for (const marker of markers) {
      const doc = docsById.get(marker._id)
      const flags = { voided: marker.voided === true && !doc.voiding, referenced: marker.referenced === true }
      if (await ids.writeIf(marker._id, { awaitingStatement: true }, { replace: { ...doc, ...flags } })) replaced.set(marker._id, marker)
    }
    return { taken: taken.filter((id) => !replaced.has(id)), replaced }
  }

  // Marks copies inserted by other batches as relied upon. Returns the ids
  // whose copy is gone (removed by that batch's failed request meanwhile).
  async function confirm (copies) {
    const confirmed = await Promise.all(copies.map(({ id, w }) => ids.writeIf(id, { w }, { set: { confirmed: true } })))
    return copies.filter((c, i) => !confirmed[i]).map((c) => c.id)
  }

  // Removes what this batch wrote for failed requests, except copies another
  // request was answered on; a replaced marker is put back.
  // One at a time on FerretDB, as in by-id.js: a request's dozens of locked
  // removals at once starved its pool of SQLite connections (a lock was
  // then not acquired within 15 s).
  async function removeUnconfirmed (docs, replaced, w) {
    const remove = (doc) => {
      const marker = replaced.get(doc._id)
      return ids.writeIf(doc._id, { w, confirmed: { $ne: true } }, marker ? { replace: marker } : { delete: true })
    }
    if (!isFerret()) await Promise.all(docs.map(remove))
    else for (const doc of docs) await remove(doc)
  }

  // One round: compares the taken ids with the stored copies. Returns the
  // failed requests, the copies to confirm, and docs to insert again.
  async function compareTaken (entries, takenIds, sameStatement) {
    const taken = new Set(takenIds)
    const rows = await ids.findMany(takenIds, { body: 1, w: 1 })
    const stored = new Map(rows.map((r) => [r._id, r]))
    const failed = new Map()
    const copies = new Map()
    const again = []
    for (const { doc, record, group } of entries) {
      if (!taken.has(doc._id) || failed.has(group)) continue
      const row = stored.get(doc._id)
      if (!row || row.body === undefined) { again.push({ doc, record, group }); continue }
      if (row.body !== doc.body && !sameStatement(row.body, record)) failed.set(group, doc._id)
      else if (row.w !== doc.w) copies.set(doc._id, { id: doc._id, w: row.w, entry: { doc, record, group } })
    }
    return { failed, copies, again }
  }

  // Settles the ids an insert found taken: which requests fail, which
  // copies the others rely on. Loops while copies vanish under it. Adds the
  // ids this batch writes on the way to `written`.
  async function settle (entries, takenIds, replaced, written, { sameStatement }) {
    const failed = new Map()
    let pending = { entries, takenIds }
    for (let round = 0; pending.takenIds.length; round++) {
      if (round === MAX_SETTLE_ROUNDS) throw new Error(`statement ids kept vanishing while being stored: ${pending.takenIds.slice(0, 3).join(', ')}`)
      if (hooks.beforeSettle) await hooks.beforeSettle(pending.takenIds)
      const { failed: f, copies, again } = await compareTaken(pending.entries, pending.takenIds, sameStatement)
      for (const [group, id] of f) failed.set(group, id)
      const relied = [...copies.values()].filter((c) => !failed.has(c.entry.group))
      if (hooks.beforeConfirm && relied.length) await hooks.beforeConfirm(relied.map((c) => c.id))
      const gone = new Set(await confirm(relied))
      const retry = [...again, ...relied.filter((c) => gone.has(c.id)).map((c) => c.entry)].filter((e) => !failed.has(e.group))
      if (!retry.length) break
      const result = await insert(retry.map((e) => e.doc))
      for (const [id, marker] of result.replaced) replaced.set(id, marker)
      const stillTaken = new Set(result.taken)
      for (const e of retry) if (!stillTaken.has(e.doc._id)) written.add(e.doc._id)
      pending = { entries: retry, takenIds: result.taken }
    }
    return failed
  }

  // Outbox documents for `entries` ({ record, doc }), grouped by the
  // upstreams their stores forward to, written before the statements (an
  // entry exists whenever its statement does) with the write's token `w`:
  // the forwarder sends a statement for the write that stored it, so a
  // statement stored already (a client retrying a request answered 503
  // whose write went through after all) is not sent again (outbox.js).
  async function enqueueForwarding (forwardTo, entries, w) {
    if (!forwardTo) return
    const byUpstreams = new Map()
    for (const e of entries) {
      const upstreams = upstreamsFor(forwardTo, e.record)
      if (!upstreams.length) continue
      const key = upstreams.join(' ')
      if (!byUpstreams.has(key)) byUpstreams.set(key, { upstreams, ids: new Set() })
      byUpstreams.get(key).ids.add(e.doc._id)
    }
    for (const { upstreams, ids } of byUpstreams.values()) await outbox.enqueue(upstreams, [...ids], { write: w })
  }

  const repository = {
    // Stores the statements of several requests (groups of records) in one
    // write, each request all or nothing. Returns `failed`, Map(group index
    // -> id of the statement that conflicts with a stored one), and
    // `inserted`, the ids this batch stored (not those already there).
    // `forwardTo`: where each store's statements are forwarded
    // (src/forwarding/upstreams.js); their outbox entries are written first, so an entry exists whenever its statement does (the
    // forwarder drops entries whose statement never appeared).
    async storeBatch (groups, { stored, sameStatement, forwardTo = null }) {
      const w = crypto.randomUUID()
      const entries = []
      groups.forEach((records, group) => { for (const record of records) entries.push({ record, group, doc: toDoc(record, stored, w) }) })
      const docs = entries.map((e) => e.doc)
      await enqueueForwarding(forwardTo, entries, w)
      const { taken, replaced } = await insert(docs)
      const takenSet = new Set(taken)
      const written = new Set(docs.filter((d) => !takenSet.has(d._id)).map((d) => d._id))
      const failed = taken.length ? await settle(entries, taken, replaced, written, { sameStatement }) : new Map()
      const ok = entries.filter((e) => !failed.has(e.group))
      if (failed.size) {
        const keep = new Set(ok.map((e) => e.doc._id))
        const mine = entries.filter((e) => failed.has(e.group) && !keep.has(e.doc._id) && written.has(e.doc._id)).map((e) => e.doc)
        await removeUnconfirmed(mine, replaced, w)
      }
      await applyReferences(ok.map((e) => e.record))
      return { failed, inserted: [...new Set(ok.filter((e) => written.has(e.doc._id)).map((e) => e.doc._id))] }
    },

    // Statements with the `stored` each record carries (import); returns the
    // ids that were stored already. Their token is one no request has (no
    // request will remove them).
    async insertStored (records, { forwardTo = null } = {}) {
      const w = crypto.randomUUID()
      const docs = records.map((r) => toDoc(r, r.stored, w))
      await enqueueForwarding(forwardTo, records.map((record, i) => ({ record, doc: docs[i] })), w)
      const { taken } = await insert(docs)
      const existing = new Set(taken)
      await applyReferences(records.filter((r) => !existing.has(r.id)))
      return taken
    },

    // Consistent-Through: moves statements to a later `stored`.
    async restamp (statementIds, stored) {
      await ids.updateMany(statementIds, { stored })
      // a timestamp the LRS set to stored moves with it (report-counts.js)
      await col.updateMany({ _id: { $in: statementIds }, ts: true }, { $set: { rh: documentReportFields({ timestampFromStored: true }, stored).rh } })
    },

    async findOne (id, { voided, authorityKey }) {
      const filter = { _id: id, voided }
      if (authorityKey) filter.authorityKey = qualify(storeOf(id), authorityKey) // the id's store's (toDoc)
      const doc = await col.findOne(filter, { projection: ROW_PROJECTION, ...read })
      return doc && doc.body !== undefined ? toRow(doc) : null
    },

    // (`write`: the token of the write that stored each, outbox.js)
    async findBodies (statementIds) {
      const docs = await ids.findMany(statementIds, { ...ROW_PROJECTION, w: 1 })
      return new Map(docs.filter((d) => d.body !== undefined).map((d) => [d._id, { ...toRow(d), write: d.w }]))
    },

    // Communication 2.1.4: statements matching the filters that some
    // StatementRef targets, and the statements that target given ids.
    // (every one)
    async findReferencedIds (q) {
      const rows = await col.find({ ...matchFilter(q), ...storeFilter(q.store), referenced: true }, { projection: { _id: 1 }, ...read }).toArray()
      return rows.map((r) => r._id)
    },

    async findIdsReferencing (ids, { limit = 0 } = {}) {
      const rows = await col.find({ ref: { $in: ids } }, { projection: { _id: 1 }, limit, ...read }).toArray()
      return rows.map((r) => r._id)
    },

    // The statements matching q through StatementRefs (statement-refs.js),
    // from the targets whatever the page (`beyond` is not used here).
    async findReferencingIds (q, { deadline } = {}) {
      return referencingThroughTargets(repository, q, { deadline })
    },

    // Workers and hosts insert at once: a statement can become visible
    // after one stored later (readers stay the consistency margin behind).
    // Positions of two rows compared as query() sorts them: stored, _id.
    order: { visibleInStoredOrder: false, compare: (a, b) => (a.stored - b.stored) || (a.position < b.position ? -1 : a.position > b.position ? 1 : 0) },

    async query (q) {
      const dir = q.ascending ? 1 : -1
      const docs = await col.find(statementFilter(q), { projection: ROW_PROJECTION, sort: { stored: dir, _id: dir }, limit: q.limit, ...read }).toArray()
      return docs.map(toRow)
    },

    // Statements in which an agent appears (relAgents: authority included),
    // voided or not, in _id order after `after` (agent erasure; served by
    // the related_agent_stored index's prefix).
    async findByAgent (agent, { after = null, limit, store = 0 }) {
      const filter = { relAgents: qualify(store, agent), body: { $exists: true } }
      if (after !== null) filter._id = { $gt: after }
      const docs = await col.find(filter, { projection: ROW_PROJECTION, sort: { _id: 1 }, limit, ...read }).toArray()
      return docs.map(toRow)
    },

    // The statements, their forwarding entries (queued and dead) and the
    // attachments no remaining statement uses (agent erasure).
    async erase (statementIds) {
      const removed = { statements: 0, attachments: 0, forwardingEntries: 0 }
      if (!statementIds.length) return removed
      const docs = await ids.findMany(statementIds, { attachments: 1, body: 1 })
      const found = docs.filter((d) => d.body !== undefined).map((d) => d._id)
      const hashes = new Set(docs.flatMap((d) => d.attachments || []))
      await ids.deleteMany(found)
      removed.statements = found.length
      removed.forwardingEntries = await outbox.removeStatements(found)
      for (const h of hashes) {
        if (!await col.findOne({ attachments: h }, { projection: { _id: 1 }, ...read })) removed.attachments += await attachments.remove(h)
      }
      return removed
    },

    // Counts for GET /admin/overview, whole hours from the one `since`
    // falls in to the one `until` falls in, by aggregation over the range
    // (the `stored` index: voided or not). `authorityKeys` is for engines
    // that cannot name an authority without it; here each is named.
    async aggregate ({ since, until, top = 10, store = 0 }) {
      const from = Math.floor(since.getTime() / HOUR_MS)
      const to = Math.floor(until.getTime() / HOUR_MS)
      const inRange = (low, high) => ({ voided: { $in: [false, true] }, ...storeFilter(store), stored: { $gte: new Date(low * HOUR_MS), $lt: new Date(high * HOUR_MS) } })
      const match = inRange(from, to + 1)
      const groupBy = (field, unwind) => col.aggregate([
        { $match: match },
        ...(unwind ? [{ $unwind: '$' + field }] : []),
        { $group: { _id: '$' + field, count: { $sum: 1 } } },
        { $sort: { count: -1, _id: 1 } },
        ...(top === Infinity ? [] : [{ $limit: top }])
      ], read).toArray()
      // One count per hour: $group on a computed hour is beyond FerretDB.
      const hourList = []
      for (let h = from; h <= to; h++) hourList.push(h)
      const [total, hours, verbs, activities, authorities] = await Promise.all([
        col.countDocuments({ voided: { $in: [false, true] }, ...storeFilter(store), stored: { $exists: true } }, read),
        Promise.all(hourList.map(async (h) => ({ start: new Date(h * HOUR_MS), count: await col.countDocuments(inRange(h, h + 1), read) }))),
        groupBy('verb'),
        groupBy('activities', true),
        (async () => { const all = await col.aggregate([{ $match: match }, { $group: { _id: '$authorityKey', count: { $sum: 1 } } }], read).toArray(); return all.sort((a, b) => b.count - a.count) })()
      ])
      return {
        total,
        hours,
        verbs: verbs.map((r) => ({ verb: unqualify(r._id), count: r.count })),
        activities: activities.map((r) => ({ activity: unqualify(r._id), count: r.count })),
        authorities: authorities.map((r) => ({ authorityKey: unqualify(r._id ?? null), count: r.count }))
      }
    },

    // Statements stored in a store (voided ones too).
    async count ({ store = 0 } = {}) {
      return col.countDocuments({ voided: { $in: [false, true] }, ...storeFilter(store), stored: { $exists: true } }, read)
    },

    // Every statement (voided ones too, each row's `voided` says) stored
    // after `since` and at or before `until`, from the keyset position
    // `after`, in _id order: an export reads every statement anyway, so it
    // walks the _id index rather than adding an index on `stored` alone to
    // every insert. A
    // store's ids are its range of it (store-keys.js): the walk reads no
    // other store's.
    async scan ({ since = null, until = null, after = null, limit, store = 0 }) {
      const filter = { body: { $exists: true }, ...storeFilter(store) }
      if (since || until) filter.stored = { ...(since && { $gt: since }), ...(until && { $lte: until }) }
      if (after !== null || store) filter._id = { ...(store && keyRange(store)), ...(after !== null && { $gt: after }) }
      const docs = await col.find(filter, { projection: SCAN_PROJECTION, sort: { _id: 1 }, limit, ...read }).toArray()
      return docs.map(toRow)
    }
  }
  return repository

  async function applyReferences (records) {
    const voids = []
    const refs = []
    for (const r of records) {
      if (r.ref) refs.push(r.ref)
      if (r.voiding) voids.push(r.ref)
    }
    if (refs.length) await setFlagsOrMark(refs, { referenced: true })
    // Data 2.3.2: voiding never applies to a voiding statement.
    if (voids.length) await setFlagsOrMark(voids, { voided: true }, { voiding: { $ne: true } })
  }
}

module.exports = { statementsRepository }
