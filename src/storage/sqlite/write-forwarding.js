'use strict'

// The writes of forwarding: the forwarders' definitions (forwarders.js),
// the outbox of statements queued for each upstream, their dead letters
// and each upstream's delivery record (outbox.js, the forwarder in
// src/forwarding/), and the removal of all of an upstream's or a store's
// queue when it goes. Apart because the forwarder's loop calls these many
// times a second, on tables that nothing on the statement path reads, and
// what is queued for an upstream is best read in one place with what
// takes it away.

const { idToBlob, blobToId } = require('./ids')
const { prefixBounds } = require('../../stores/store-keys')
const { storeUpstreamPrefix } = require('../../forwarding/upstreams')
const { mergeNote } = require('../../forwarding/delivery-state')
const { FORWARD_STATE } = require('./outbox')
const { credentialsChanged } = require('./write-credentials')

// A store's own upstreams' queued entries and dead letters (the LRS-wide
// ones' go as the forwarder finds their statements gone).
function dropStoreForwarding (db, number) {
  const own = storeUpstreamPrefix(number)
  db.prepare('DELETE FROM forward_outbox WHERE upstream >= ? AND upstream < ?').run(...prefixBounds(own))
  db.prepare('DELETE FROM forward_dead_letters WHERE upstream >= ? AND upstream < ?').run(...prefixBounds(own))
  db.prepare('DELETE FROM settings WHERE name >= ? AND name < ?').run(...prefixBounds(FORWARD_STATE + own))
}

// An upstream's queued entries, dead letters and delivery record.
function dropForwarding (db, upstream) {
  db.prepare('DELETE FROM forward_outbox WHERE upstream = ?').run(upstream)
  db.prepare('DELETE FROM forward_dead_letters WHERE upstream = ?').run(upstream)
  db.prepare('DELETE FROM settings WHERE name = ?').run(FORWARD_STATE + upstream)
}

function forwardingWrites ({ db, insertOutbox }) {
  // Removes up to `limit` dead letters of `upstreams` (ids), calling
  // `each(row)` for each before it goes; returns how many.
  function takeDeadLetters ({ upstreams, limit }, each = () => {}) {
    const select = db.prepare('SELECT upstream, statement_id FROM forward_dead_letters WHERE upstream = ? LIMIT ?')
    const rows = []
    for (const upstream of upstreams) rows.push(...select.all(upstream, limit - rows.length))
    const remove = db.prepare('DELETE FROM forward_dead_letters WHERE upstream = ? AND statement_id = ?')
    for (const r of rows) {
      each(r)
      remove.run(r.upstream, r.statement_id)
    }
    return rows.length
  }

  const ops = {
    // A new forwarder (forwarders.js); false when its store is gone.
    forwarderCreate ({ id, store, definition, at }) {
      if (!db.prepare('SELECT 1 FROM stores WHERE number = ? AND deleted_at IS NULL').get(store) && store !== 0) return false
      db.prepare('INSERT INTO forwarders (id, store, revision, definition, created_ms, updated_ms) VALUES (?, ?, 1, ?, ?, ?)').run(id, store, JSON.stringify(definition), at, at)
      credentialsChanged(db)
      return true
    },

    // Replaces a forwarder's definition if it is still at `revision`:
    // 'changed', 'moved' (another change came first) or 'missing'.
    forwarderReplace ({ id, store, revision, definition, at }) {
      const { changes } = db.prepare('UPDATE forwarders SET definition = ?, revision = revision + 1, updated_ms = ? WHERE id = ? AND store = ? AND revision = ?').run(JSON.stringify(definition), at, id, store, revision)
      if (changes) {
        credentialsChanged(db)
        return 'changed'
      }
      return db.prepare('SELECT 1 FROM forwarders WHERE id = ? AND store = ?').get(id, store) ? 'moved' : 'missing'
    },

    // Removes a forwarder with its queue and dead letters; false: none.
    forwarderRemove ({ id, store, upstream }) {
      if (!db.prepare('DELETE FROM forwarders WHERE id = ? AND store = ?').run(id, store).changes) return false
      dropForwarding(db, upstream)
      credentialsChanged(db)
      return true
    },

    outboxLease (upstream, { limit, leaseMs }) {
      const now = Date.now()
      const rows = db.prepare('SELECT statement_id, enqueued_at FROM forward_outbox WHERE upstream = ? AND lease_until < ? LIMIT ?').all(upstream, now, limit)
      const lease = db.prepare('UPDATE forward_outbox SET lease_until = ? WHERE upstream = ? AND statement_id = ?')
      for (const r of rows) lease.run(now + leaseMs, upstream, r.statement_id)
      return rows.map((r) => ({ upstream, statementId: blobToId(r.statement_id), enqueuedAt: r.enqueued_at }))
    },

    outboxRelease (entries, { delayMs }) {
      const release = db.prepare('UPDATE forward_outbox SET lease_until = ? WHERE upstream = ? AND statement_id = ?')
      for (const e of entries) release.run(Date.now() + delayMs, e.upstream, idToBlob(e.statementId))
    },

    outboxRemove (entries) {
      const remove = db.prepare('DELETE FROM forward_outbox WHERE upstream = ? AND statement_id = ?')
      for (const e of entries) remove.run(e.upstream, idToBlob(e.statementId))
    },

    outboxDeadLetter (entries, { status, reason }) {
      const dead = db.prepare(`INSERT INTO forward_dead_letters (upstream, statement_id, enqueued_at, status, reason, failed_at)
        VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
      for (const e of entries) dead.run(e.upstream, idToBlob(e.statementId), e.enqueuedAt, status, reason, Date.now())
      ops.outboxRemove(entries) // as wrapped by write-ops.js
    },

    // How delivery to an upstream goes (delivery-state.js): read, merged, written.
    outboxNote (upstream, note) {
      const current = db.prepare('SELECT value FROM settings WHERE name = ?').pluck().get(FORWARD_STATE + upstream)
      const next = mergeNote(current ? JSON.parse(current) : null, note, Date.now())
      db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value').run(FORWARD_STATE + upstream, JSON.stringify(next))
    },

    outboxReplay: (params) => takeDeadLetters(params, (r) => insertOutbox.run(r.upstream, r.statement_id, Date.now())),

    outboxDiscard: (params) => takeDeadLetters(params)
  }
  return ops
}

module.exports = { forwardingWrites, dropForwarding, dropStoreForwarding }
