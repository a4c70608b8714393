'use strict'

// The forwarding outbox and its dead letters on SQLite. Entries are written
// by storeBatch with their statements, in the same transaction.

const { blobToId } = require('./ids')

// an upstream's delivery record is the setting of this name and its id
const FORWARD_STATE = 'forward-state '

// Entry ids as the forwarder sees them: "<upstream> <statementId>".
const entryId = (upstream, statementId) => `${upstream} ${statementId}`
const parseEntryId = (id) => {
  const space = id.lastIndexOf(' ')
  return { upstream: id.slice(0, space), statementId: id.slice(space + 1) }
}

function outboxRepository (db, { writer }) {
  const toEntry = (e) => ({ id: entryId(e.upstream, e.statementId), upstream: e.upstream, statementId: e.statementId, enqueuedAt: new Date(e.enqueuedAt) })
  const fromEntry = (e) => ({ upstream: e.upstream, statementId: e.statementId, enqueuedAt: e.enqueuedAt.getTime() })
  // Whether anything waits that a lease could take, read on this worker's
  // own connection: an idle upstream's loop asks twice a second, and with
  // a hundred forwarders on two workers that was 400 calls a second to the
  // one writer, which ingest needs.
  const leasable = db.prepare('SELECT 1 FROM forward_outbox WHERE upstream = ? AND lease_until < ? LIMIT 1').pluck()
  return {
    async lease (upstream, { limit, leaseMs }) {
      if (!leasable.get(upstream, Date.now())) return []
      return (await writer.call('outboxLease', upstream, { limit, leaseMs })).map(toEntry)
    },
    async release (ids, { delayMs = 0 } = {}) {
      if (ids.length) await writer.call('outboxRelease', ids.map(parseEntryId), { delayMs })
    },
    // Keeps these leased entries `ms` more from now (one transaction).
    async hold (ids, { ms }) {
      if (ids.length) await writer.call('outboxRelease', ids.map(parseEntryId), { delayMs: ms })
    },
    // One writer decides every lease: a lease is this worker's until it
    // runs out (hold keeps it), and it has no state of its own to forget.
    stillHeld: () => true,
    forget: () => {},
    async remove (ids) {
      if (ids.length) await writer.call('outboxRemove', ids.map(parseEntryId))
    },
    async deadLetter (entries, { status, reason }) {
      if (entries.length) await writer.call('outboxDeadLetter', entries.map(fromEntry), { status, reason })
    },
    // Up to `limit` dead letters of `upstreams` (ids), by upstream and statement.
    async listDeadLetters ({ upstreams, limit }) {
      const select = db.prepare('SELECT * FROM forward_dead_letters WHERE upstream = ? ORDER BY statement_id LIMIT ?')
      const rows = []
      for (const upstream of [...upstreams].sort()) rows.push(...select.all(upstream, limit - rows.length))
      return rows.map((r) => ({
        ...toEntry({ upstream: r.upstream, statementId: blobToId(r.statement_id), enqueuedAt: r.enqueued_at }),
        status: r.status,
        reason: r.reason,
        failedAt: new Date(r.failed_at)
      }))
    },
    replayDeadLetters: ({ upstreams, limit }) => writer.call('outboxReplay', { upstreams, limit }),
    // Drops dead letters for good (the statements stay stored). Returns how many.
    discardDeadLetters: ({ upstreams, limit }) => writer.call('outboxDiscard', { upstreams, limit }),
    // How delivery to an upstream goes (src/forwarding/delivery-state.js).
    noteDelivery: (upstream, note) => writer.call('outboxNote', upstream, note),
    async deliveryState (upstream) {
      const value = db.prepare('SELECT value FROM settings WHERE name = ?').pluck().get(FORWARD_STATE + upstream)
      return value ? JSON.parse(value) : null
    },
    // For /metrics: entries waiting, the oldest one's age, dead letters.
    async stats (upstream) {
      const queued = db.prepare('SELECT count(*) AS n, min(enqueued_at) AS oldest FROM forward_outbox WHERE upstream = ?').get(upstream)
      const dead = db.prepare('SELECT count(*) FROM forward_dead_letters WHERE upstream = ?').pluck().get(upstream)
      return { queued: queued.n, oldestEnqueuedAt: queued.oldest === null ? null : new Date(queued.oldest), deadLetters: dead }
    }
  }
}

module.exports = { outboxRepository, FORWARD_STATE }
