'use strict'

const { insertManyReportingDuplicates } = require('./insert-many')

// The forwarding outbox: one entry per (upstream, statement), written in the
// write path before the request is answered, so forwarding survives
// restarts. { _id: "<upstream>:<statementId>", upstream, statementId,
// enqueuedAt, leaseUntil }. Only used when upstream LRSs are configured.

function outboxRepository (db, { queryTimeoutMs }) {
  const col = db.collection('forward_outbox')
  return {
    async enqueue (upstreamCount, statementIds) {
      const docs = []
      const epoch = new Date(0)
      for (let u = 0; u < upstreamCount; u++) {
        for (const id of statementIds) docs.push({ _id: `${u}:${id}`, upstream: u, statementId: id, enqueuedAt: new Date(), leaseUntil: epoch })
      }
      // Already queued (the same statement sent again): nothing to add.
      await insertManyReportingDuplicates(col, docs)
    },
    // Takes up to `limit` entries for an upstream whose lease has expired and
    // leases them. Two workers may occasionally take the same entry; that
    // only re-sends a statement with its id, which upstream LRSs deduplicate.
    async lease (upstream, { limit, leaseMs }) {
      const now = new Date()
      const rows = await col.find({ upstream, leaseUntil: { $lt: now } }, { projection: { statementId: 1 }, limit, maxTimeMS: queryTimeoutMs }).toArray()
      if (!rows.length) return []
      await col.updateMany({ _id: { $in: rows.map((r) => r._id) } }, { $set: { leaseUntil: new Date(Date.now() + leaseMs) } })
      return rows
    },
    // Gives leased entries back at once (after a failed delivery).
    async release (ids) {
      if (ids.length) await col.updateMany({ _id: { $in: ids } }, { $set: { leaseUntil: new Date(0) } })
    },
    async remove (ids) {
      if (ids.length) await col.deleteMany({ _id: { $in: ids } })
    },
    async count (upstream) {
      return col.countDocuments(upstream === undefined ? {} : { upstream }, { maxTimeMS: queryTimeoutMs })
    }
  }
}

module.exports = { outboxRepository }
