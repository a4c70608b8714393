'use strict'

// The forwarding outbox on MongoDB: one document per write batch and
// upstream, { _id: "<upstream> <uuid>", upstream, statementIds, w,
// enqueuedAt, leaseUntil }, of up to CHUNK statements. One document a
// statement cost FerretDB a document write (~12 ms, more under load) to
// queue each statement and another to remove it, and capped three hosts
// forwarding to one upstream at 100–250 statements/s (issue 55). (Documents
// from before, { _id: "<upstream> <statementId>", statementId }, are read
// as batches of one.) Entries an upstream refused for good move to
// forward_dead_letters, one per statement ({ _id: "<upstream>
// <statementId>", upstream, statementId, enqueuedAt, status, reason,
// failedAt }) until an admin replays them.
//
// A write makes its documents before its statements, with its token `w`,
// and the forwarder sends a statement only for the write that stored it
// (the statement's own `w`, statements.js): a statement stored by an
// earlier request (a client retrying a 503 whose write went through after
// all) or by a request beside it was queued by that request, and sent for
// both it reached the upstream twice (2,595 of 5,455 after an outage).
// Deciding it there costs the write path nothing: no read before the
// write, no write after it.
//
// The forwarder sees entries ({ id, upstream, statementId, enqueuedAt,
// write }). A worker leases whole documents by one lease document in
// forward_leases, { _id, upstream, ids, until }, made under a lock per
// upstream (locks.js): the next worker to lease reads the leases (a few
// documents) and takes other documents. `hold` keeps a lease while its
// delivery goes on. A lease whose worker died, or whose worker was slower
// than it (a saturated database), runs out at `until` and its documents are
// taken again (sent again: at least once). The forwarder asks `stillHeld`
// before each POST, so a worker that lost its lease stops rather than
// sends what another now holds. A removal pulls entries from their
// document (and only once that write is done does the worker forget them:
// a removal that failed is made again); a lease ends when all its
// documents are settled.

const crypto = require('node:crypto')
const { insertManyReportingDuplicates } = require('./insert-many')
const { mergeNote } = require('../../forwarding/delivery-state')

const EPOCH = new Date(0)
// statements per document: a lease takes whole documents
const CHUNK = 100

// What is kept per upstream, each document with its `upstream` (removed
// with it)
const FORWARDING_COLLECTIONS = ['forward_outbox', 'forward_dead_letters', 'forward_state']

const idsOf = (doc) => doc.statementIds || [doc.statementId]
const fromState = ({ delivered, lastDeliveredAt, lastErrorAt, lastError, failingSince }) => ({ delivered, lastDeliveredAt, lastErrorAt, lastError, failingSince })

// The queued and dead entries of these statements (agent erasure, a deleted
// store's purge); how many.
async function removeStatementEntries (db, statementIds) {
  if (!statementIds.length) return 0
  const col = db.collection('forward_outbox')
  const gone = new Set(statementIds)
  let removed = 0
  const docs = await col.find({ $or: [{ statementIds: { $in: statementIds } }, { statementId: { $in: statementIds } }] }).toArray()
  const ops = []
  for (const doc of docs) {
    const ids = idsOf(doc)
    const left = ids.filter((id) => !gone.has(id))
    removed += ids.length - left.length
    ops.push(left.length && doc.statementIds ? { updateOne: { filter: { _id: doc._id }, update: { $pullAll: { statementIds: ids.filter((id) => gone.has(id)) } } } } : { deleteOne: { filter: { _id: doc._id } } })
  }
  if (ops.length) await col.bulkWrite(ops, { ordered: false })
  removed += (await db.collection('forward_dead_letters').deleteMany({ statementId: { $in: statementIds } })).deletedCount
  return removed
}

function outboxRepository (db, { queryTimeoutMs, locks }) {
  const col = db.collection('forward_outbox')
  const dead = db.collection('forward_dead_letters')
  const leases = db.collection('forward_leases')
  // { _id: upstream, upstream, ...the delivery record } (delivery-state.js)
  const states = db.collection('forward_state')
  const read = { maxTimeMS: queryTimeoutMs }
  const write = async (collection, ops) => { if (ops.length) await collection.bulkWrite(ops, { ordered: false }) }
  const deleteIds = (collection, ids) => ids.length ? collection.deleteMany({ _id: { $in: ids } }) : null

  // This worker's leases: lease id -> { docs: ids of its documents not
  // settled, until: when it runs out (ms), lost: a hold landed after it
  // ran out }; document id -> { lease, upstream, enqueuedAt, write, mine:
  // statement ids still its to settle }; entry id -> { docId, statementId }.
  const open = new Map()
  const docs = new Map()
  const entries = new Map()

  // the leased document of an entry, and the lease of a document (undefined
  // once forgotten)
  const docOf = (entryId) => {
    const e = entries.get(entryId)
    return e && docs.get(e.docId)
  }
  const leaseOf = (d) => d && open.get(d.lease)
  // whether a lease is this worker's for `ms` more at least
  const live = (lease, ms = 0) => Boolean(lease) && !lease.lost && lease.until - Date.now() > ms
  const held = (docId) => live(leaseOf(docs.get(docId)))

  // Forgets a document this worker leased; its lease ends when it has no
  // document left (`write`: its lease document is deleted).
  function drop (docId, ended) {
    const d = docs.get(docId)
    docs.delete(docId)
    for (const statementId of d.mine) entries.delete(`${docId} ${statementId}`)
    const lease = open.get(d.lease)
    if (!lease) return
    lease.docs.delete(docId)
    if (!lease.docs.size) {
      open.delete(d.lease)
      if (ended) ended.push(d.lease)
    }
  }

  // Takes entries out of their leased documents. Removed entries are
  // pulled from their document (deleted once this worker has settled all
  // it held); `handBack` (a release) queues them again after `delayMs`:
  // the whole document when all it held is given back, else as a document
  // of their own, whose _id is the same however often this is tried.
  // Documents only shrink, by a pull: a worker whose lease ran out (and
  // whose documents another may hold now) never puts back what that other
  // one removed, and gives nothing back (it is not its to give); it
  // forgets such a document.
  async function take (ids, { handBack = null } = {}) {
    const taken = new Map() // document id -> statement ids
    for (const id of ids) {
      const e = entries.get(id)
      if (!e || !docs.has(e.docId)) continue
      if (!taken.has(e.docId)) taken.set(e.docId, new Set())
      taken.get(e.docId).add(e.statementId)
    }
    const ops = []
    const again = []
    const settled = new Map() // document id -> what it still holds of this worker's
    const lostOnes = []
    for (const [docId, out] of taken) {
      const d = docs.get(docId)
      const rest = [...d.mine].filter((id) => !out.has(id))
      const pull = { updateOne: { filter: { _id: docId }, update: { $pullAll: { statementIds: [...out] } } } }
      if (!held(docId)) {
        if (!handBack) ops.push(pull)
        lostOnes.push(docId)
        continue
      }
      settled.set(docId, rest)
      if (handBack && !rest.length) {
        ops.push({ updateOne: { filter: { _id: docId }, update: { $set: { leaseUntil: handBack.until } } } })
        continue
      }
      if (handBack) {
        const part = [...out].sort()
        const _id = `${d.upstream} ${crypto.createHash('sha256').update(docId + ' ' + part.join(' ')).digest('base64url').slice(0, 22)}`
        again.push({ _id, upstream: d.upstream, statementIds: part, w: d.write, enqueuedAt: d.enqueuedAt, leaseUntil: handBack.until })
      }
      ops.push(rest.length ? pull : { deleteOne: { filter: { _id: docId } } })
    }
    // what is given back is queued before it leaves its document: a stop
    // between the two sends it twice rather than never
    await insertManyReportingDuplicates(col, again)
    await write(col, ops)
    const ended = []
    for (const [docId, rest] of settled) {
      const d = docs.get(docId)
      for (const statementId of taken.get(docId)) entries.delete(`${docId} ${statementId}`)
      d.mine = new Set(rest)
      if (!rest.length) drop(docId, ended)
    }
    for (const docId of lostOnes) drop(docId)
    await deleteIds(leases, ended)
  }

  // Documents for `statementIds` to each of `upstreams`, queued by the
  // write `write` (none: sent whichever write stored them).
  async function enqueue (upstreams, statementIds, { write } = {}) {
    const enqueuedAt = new Date()
    const made = []
    for (const upstream of upstreams) {
      for (let i = 0; i < statementIds.length; i += CHUNK) {
        const ids = statementIds.slice(i, i + CHUNK)
        made.push({ _id: `${upstream} ${crypto.randomUUID()}`, upstream, statementIds: ids, w: write, enqueuedAt, leaseUntil: EPOCH })
      }
    }
    await insertManyReportingDuplicates(col, made)
  }

  // Removes up to `limit` dead letters of `upstreams` (ids); returns them.
  async function takeDeadLetters ({ upstreams, limit }) {
    const rows = await dead.find({ upstream: { $in: upstreams } }, { projection: { upstream: 1, statementId: 1 }, limit, ...read }).toArray()
    return rows
  }

  return {
    // Queues statements a write (its token `write`) is about to store.
    enqueue,
    // Takes documents of an upstream whose lease has expired, up to about
    // `limit` entries (whole documents, at least one), and leases them,
    // under a lock per upstream: between the read and the lease another
    // worker (of this host or another) would read the same documents and
    // send them too, and every statement reaches an upstream once in the
    // normal case (issue 55). Only documents whose lease ran out (their
    // worker died mid-delivery) are sent again.
    async lease (upstream, { limit, leaseMs }) {
      return locks.withLock(`outbox-lease ${upstream}`, async () => {
        const now = new Date()
        const taken = new Set()
        const runOut = []
        for (const l of await leases.find({ upstream }, read).toArray()) {
          if (l.until > now) for (const id of l.ids) taken.add(id)
          else runOut.push(l._id)
        }
        await deleteIds(leases, runOut)
        const found = await col.find({ upstream, leaseUntil: { $lt: now } }, { limit: limit + taken.size, ...read }).toArray()
        const chosen = []
        const empty = []
        let count = 0
        for (const doc of found) {
          if (taken.has(doc._id)) continue
          // every entry pulled by workers whose leases ran out
          if (!idsOf(doc).length) {
            empty.push(doc._id)
            continue
          }
          if (chosen.length && count + idsOf(doc).length > limit) break
          // this worker's lease of it ran out (a release the database did
          // not take): taken again, from what the database holds
          if (docs.has(doc._id)) drop(doc._id)
          chosen.push(doc)
          count += idsOf(doc).length
        }
        await deleteIds(col, empty)
        if (!chosen.length) return []
        const _id = `${upstream} ${crypto.randomUUID()}`
        const until = Date.now() + leaseMs
        await leases.insertOne({ _id, upstream, ids: chosen.map((d) => d._id), until: new Date(until) })
        open.set(_id, { docs: new Set(chosen.map((d) => d._id)), until, lost: false })
        const out = []
        for (const doc of chosen) {
          const ids = idsOf(doc)
          docs.set(doc._id, { lease: _id, upstream, enqueuedAt: doc.enqueuedAt, write: doc.w, mine: new Set(ids) })
          for (const statementId of ids) {
            const id = `${doc._id} ${statementId}`
            entries.set(id, { docId: doc._id, statementId })
            out.push({ id, upstream, statementId, enqueuedAt: doc.enqueuedAt, write: doc.w })
          }
        }
        return out
      })
    },
    // Keeps the leases of these (leased) entries `ms` more from now. A
    // hold that lands after a lease ran out does not make it this worker's
    // again (another may have taken its documents meanwhile).
    async hold (ids, { ms }) {
      const held = [...new Set(ids.map((id) => docOf(id)?.lease).filter((l) => open.has(l)))]
      if (!held.length) return
      const until = Date.now() + ms
      await leases.updateMany({ _id: { $in: held } }, { $set: { until: new Date(until) } })
      for (const lease of held.map((l) => open.get(l)).filter(Boolean)) {
        if (Date.now() < lease.until) lease.until = until
        else lease.lost = true
      }
    },
    // Whether these entries' leases are this worker's for `ms` more at least.
    stillHeld: (ids, { ms }) => ids.every((id) => live(leaseOf(docOf(id)), ms)),
    // Lets go of leased entries without a write (their lease was lost).
    forget (ids) {
      for (const docId of new Set(ids.map((id) => entries.get(id)?.docId).filter((d) => docs.has(d)))) drop(docId)
    },
    // Gives leased entries back (after a failed delivery), to be taken
    // again after `delayMs`.
    release: (ids, { delayMs = 0 } = {}) => take(ids, { handBack: { until: new Date(Date.now() + delayMs) } }),
    remove: (ids) => take(ids),
    async deadLetter (list, { status, reason }) {
      if (!list.length) return
      const failedAt = new Date()
      await insertManyReportingDuplicates(dead, list.map((e) => ({ _id: `${e.upstream} ${e.statementId}`, upstream: e.upstream, statementId: e.statementId, enqueuedAt: e.enqueuedAt, status, reason, failedAt })))
      await take(list.map((e) => e.id))
    },
    // Up to `limit` dead letters of `upstreams` (ids), by upstream and statement.
    async listDeadLetters ({ upstreams, limit }) {
      const rows = await dead.find({ upstream: { $in: upstreams } }, { sort: { _id: 1 }, limit, ...read }).toArray()
      return rows.map((r) => ({ id: r._id, upstream: r.upstream, statementId: r.statementId, enqueuedAt: r.enqueuedAt, status: r.status, reason: r.reason, failedAt: r.failedAt }))
    },
    // Puts dead letters back in the outbox. Returns how many.
    async replayDeadLetters (params) {
      const rows = await takeDeadLetters(params)
      const byUpstream = new Map()
      for (const r of rows) byUpstream.set(r.upstream, [...(byUpstream.get(r.upstream) || []), r.statementId])
      for (const [upstream, ids] of byUpstream) await enqueue([upstream], ids)
      await deleteIds(dead, rows.map((r) => r._id))
      return rows.length
    },
    // Drops dead letters for good (the statements stay stored). Returns how many.
    async discardDeadLetters (params) {
      const rows = await takeDeadLetters(params)
      await deleteIds(dead, rows.map((r) => r._id))
      return rows.length
    },
    // Entries, queued or dead, of these statements (agent erasure); how many.
    removeStatements: (statementIds) => removeStatementEntries(db, statementIds),
    // How delivery to an upstream goes, from every worker's notes
    // (src/forwarding/delivery-state.js). Read, merged and written: two
    // notes at once keep one of them, and the next note says the same.
    async noteDelivery (upstream, note) {
      const current = await states.findOne({ _id: upstream }, read)
      const next = mergeNote(current && fromState(current), note, Date.now())
      await states.replaceOne({ _id: upstream }, { _id: upstream, upstream, ...next }, { upsert: true })
    },
    async deliveryState (upstream) {
      const doc = await states.findOne({ _id: upstream }, read)
      return doc ? fromState(doc) : null
    },
    // For /metrics: entries waiting, the oldest one's age, dead letters.
    async stats (upstream) {
      const [queued, deadLetters] = await Promise.all([
        col.find({ upstream }, { projection: { statementIds: 1, statementId: 1, enqueuedAt: 1 }, ...read }).toArray(),
        dead.countDocuments({ upstream }, read)
      ])
      let oldest = null
      let n = 0
      for (const d of queued) {
        if (!idsOf(d).length) continue
        n += idsOf(d).length
        if (!oldest || d.enqueuedAt < oldest) oldest = d.enqueuedAt
      }
      return { queued: n, oldestEnqueuedAt: oldest, deadLetters }
    }
  }
}

module.exports = { outboxRepository, removeStatementEntries, idsOf, FORWARDING_COLLECTIONS }
