'use strict'

// The forwarding outbox: one entry per (upstream, statement), written by
// storeBatch before the statements, so forwarding survives restarts and
// crashes. { _id: "<upstream> <statementId>", upstream, statementId,
// enqueuedAt, leaseUntil }. Entries an upstream refused for good move to
// forward_dead_letters (same fields plus status, reason, failedAt) until an
// admin replays them. Only used when upstream LRSs are configured.
//
// A worker leases a batch of an upstream's entries by one document in
// forward_leases, { _id, upstream, ids, until }, made under a lock per
// upstream (locks.js): the next worker to lease reads the leases (a few
// documents) and takes other entries. One document a batch rather than a
// lease time written on each of its hundred entries: on FerretDB every
// document write costs ~12 ms (more under load), and a batch's hundred
// writes made leasing take seconds, and outlast the lease itself, so
// another worker took entries whose delivery was under way and they
// reached the upstream twice. `hold` keeps a lease while its delivery goes
// on, one write whatever the batch. A lease whose worker died runs out at
// `until` and its entries are taken again (sent again: at least once).
// The lease ends when the worker has released, removed or dead-lettered
// all of its entries.

const crypto = require('node:crypto')
const { insertManyReportingDuplicates } = require('./insert-many')

const EPOCH = new Date(0)

function entryId (upstream, statementId) {
  return `${upstream} ${statementId}`
}

function outboxRepository (db, { queryTimeoutMs, locks }) {
  const col = db.collection('forward_outbox')
  const dead = db.collection('forward_dead_letters')
  const read = { maxTimeMS: queryTimeoutMs }
  // These collections hold what waits to be sent, not every statement:
  // one command for many documents (`$in`), which FerretDB answers by
  // reading the collection, costs less than a command each (by-id.js),
  // whose round trips added up to a minute for a batch over a slow link,
  // and outlived its lease.
  const many = (collection) => ({
    deleteMany: async (ids) => { if (ids.length) await collection.deleteMany({ _id: { $in: ids } }) },
    updateMany: async (ids, set) => { if (ids.length) await collection.updateMany({ _id: { $in: ids } }, { $set: set }) }
  })
  const entries = many(col)
  const deadById = many(dead)
  const leases = db.collection('forward_leases')
  const leasesById = many(leases)
  // this worker's leases: lease id -> its entries not settled yet; entry id -> lease id
  const open = new Map()
  const leaseOf = new Map()

  // The entries are released, removed or dead letters: a lease left with
  // none ends.
  async function settle (ids) {
    const ended = []
    for (const id of ids) {
      const lease = leaseOf.get(id)
      if (!lease) continue
      leaseOf.delete(id)
      const left = open.get(lease)
      left.delete(id)
      if (!left.size) {
        open.delete(lease)
        ended.push(lease)
      }
    }
    await leasesById.deleteMany(ended)
  }

  async function enqueue (upstreams, statementIds) {
    const enqueuedAt = new Date()
    const docs = []
    for (const upstream of upstreams) {
      for (const statementId of statementIds) docs.push({ _id: entryId(upstream, statementId), upstream, statementId, enqueuedAt, leaseUntil: EPOCH })
    }
    // Already queued (the same statement sent again): nothing to add.
    await insertManyReportingDuplicates(col, docs)
  }

  const toEntry = (r) => ({ id: r._id, upstream: r.upstream, statementId: r.statementId, enqueuedAt: r.enqueuedAt })

  // Removes up to `limit` dead letters of `upstreams` (ids), awaiting
  // `each(row)` for each first; returns how many.
  async function takeDeadLetters ({ upstreams, limit }, each = async () => {}) {
    const rows = await dead.find({ upstream: { $in: upstreams } }, { projection: { upstream: 1, statementId: 1 }, limit, ...read }).toArray()
    for (const r of rows) await each(r)
    await deadById.deleteMany(rows.map((r) => r._id))
    return rows.length
  }

  return {
    enqueue,
    // Takes up to `limit` entries of an upstream whose lease has expired and
    // leases them, under a lock per upstream: between the read and the
    // lease another worker (of this host or another) would read the same
    // entries and send them too, and every statement reaches an upstream
    // once in the normal case (issue 55). Only entries whose lease ran out
    // (their worker died mid-delivery) are sent again.
    async lease (upstream, { limit, leaseMs }) {
      return locks.withLock(`outbox-lease ${upstream}`, async () => {
        const now = new Date()
        const taken = new Set()
        const runOut = []
        for (const l of await leases.find({ upstream }, read).toArray()) {
          if (l.until > now) for (const id of l.ids) taken.add(id)
          else runOut.push(l._id)
        }
        await leasesById.deleteMany(runOut)
        const found = await col.find({ upstream, leaseUntil: { $lt: now } }, { limit: limit + taken.size, ...read }).toArray()
        const rows = found.filter((r) => !taken.has(r._id)).slice(0, limit)
        if (!rows.length) return []
        const _id = `${upstream} ${crypto.randomUUID()}`
        await leases.insertOne({ _id, upstream, ids: rows.map((r) => r._id), until: new Date(Date.now() + leaseMs) })
        open.set(_id, new Set(rows.map((r) => r._id)))
        for (const r of rows) leaseOf.set(r._id, _id)
        return rows.map(toEntry)
      })
    },
    // Keeps the leases of these (leased) entries `ms` more from now.
    async hold (ids, { ms }) {
      const held = [...new Set(ids.map((id) => leaseOf.get(id)).filter(Boolean))]
      await leasesById.updateMany(held, { until: new Date(Date.now() + ms) })
    },
    // Gives leased entries back (after a failed delivery), to be taken
    // again after `delayMs`.
    async release (ids, { delayMs = 0 } = {}) {
      await entries.updateMany(ids, { leaseUntil: new Date(Date.now() + delayMs) })
      await settle(ids)
    },
    async remove (ids) {
      await entries.deleteMany(ids)
      await settle(ids)
    },
    async deadLetter (list, { status, reason }) {
      if (!list.length) return
      const failedAt = new Date()
      await insertManyReportingDuplicates(dead, list.map((e) => ({ _id: e.id, upstream: e.upstream, statementId: e.statementId, enqueuedAt: e.enqueuedAt, status, reason, failedAt })))
      await entries.deleteMany(list.map((e) => e.id))
      await settle(list.map((e) => e.id))
    },
    // Up to `limit` dead letters of `upstreams` (ids), by upstream and statement.
    async listDeadLetters ({ upstreams, limit }) {
      const rows = await dead.find({ upstream: { $in: upstreams } }, { sort: { _id: 1 }, limit, ...read }).toArray()
      return rows.map((r) => ({ ...toEntry(r), status: r.status, reason: r.reason, failedAt: r.failedAt }))
    },
    // Puts dead letters back in the outbox. Returns how many.
    replayDeadLetters: (params) => takeDeadLetters(params, (r) => enqueue([r.upstream], [r.statementId])),
    // Drops dead letters for good (the statements stay stored). Returns how many.
    discardDeadLetters: (params) => takeDeadLetters(params),
    // Entries, queued or dead, of these statements (agent erasure); how many.
    async removeStatements (statementIds) {
      if (!statementIds.length) return 0
      const filter = { statementId: { $in: statementIds } }
      const [queued, deadOnes] = await Promise.all([col.deleteMany(filter), dead.deleteMany(filter)])
      return queued.deletedCount + deadOnes.deletedCount
    },
    // For /metrics: entries waiting, the oldest one's age, dead letters.
    async stats (upstream) {
      const [queued, oldest, deadLetters] = await Promise.all([
        col.countDocuments({ upstream }, read),
        col.find({ upstream }, { projection: { enqueuedAt: 1 }, sort: { enqueuedAt: 1 }, limit: 1, ...read }).toArray(),
        dead.countDocuments({ upstream }, read)
      ])
      return { queued, oldestEnqueuedAt: oldest.length ? oldest[0].enqueuedAt : null, deadLetters }
    }
  }
}

module.exports = { outboxRepository }
