'use strict'

// The forwarding outbox: one entry per (upstream, statement), written by
// storeBatch before the statements, so forwarding survives restarts and
// crashes. { _id: "<upstream> <statementId>", upstream, statementId,
// enqueuedAt, leaseUntil }. Entries an upstream refused for good move to
// forward_dead_letters (same fields plus status, reason, failedAt) until an
// admin replays them. Only used when upstream LRSs are configured.

const { insertManyReportingDuplicates } = require('./insert-many')
const { byId } = require('./by-id')

const EPOCH = new Date(0)

function entryId (upstream, statementId) {
  return `${upstream} ${statementId}`
}

function outboxRepository (db, { queryTimeoutMs, isFerret, locks }) {
  const col = db.collection('forward_outbox')
  const dead = db.collection('forward_dead_letters')
  const read = { maxTimeMS: queryTimeoutMs }
  const entries = byId(col, { isFerret, locks, maxTimeMS: queryTimeoutMs })
  const deadById = byId(dead, { isFerret, locks, maxTimeMS: queryTimeoutMs })

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
        const rows = await col.find({ upstream, leaseUntil: { $lt: new Date() } }, { limit, ...read }).toArray()
        if (!rows.length) return []
        await entries.updateMany(rows.map((r) => r._id), { leaseUntil: new Date(Date.now() + leaseMs) })
        return rows.map(toEntry)
      })
    },
    // Gives leased entries back (after a failed delivery), to be taken
    // again after `delayMs`.
    async release (ids, { delayMs = 0 } = {}) {
      await entries.updateMany(ids, { leaseUntil: new Date(Date.now() + delayMs) })
    },
    async remove (ids) {
      await entries.deleteMany(ids)
    },
    async deadLetter (list, { status, reason }) {
      if (!list.length) return
      const failedAt = new Date()
      await insertManyReportingDuplicates(dead, list.map((e) => ({ _id: e.id, upstream: e.upstream, statementId: e.statementId, enqueuedAt: e.enqueuedAt, status, reason, failedAt })))
      await entries.deleteMany(list.map((e) => e.id))
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
