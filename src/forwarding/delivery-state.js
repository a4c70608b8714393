'use strict'

// A forwarder's delivery as every worker and host sees it: one record per
// upstream in the database (outbox.noteDelivery / deliveryState), noted by
// whichever worker delivers: { delivered, lastDeliveredAt, lastErrorAt,
// lastError, failingSince } (times in ms). A worker alone knows only its
// own tries; the console and /metrics must say how the forwarder does.
//
// Deliveries are noted at most every NOTE_EVERY_MS per worker (their count
// kept meanwhile), so a busy forwarder costs the database a write every few
// seconds, not one a batch; failures as they come (the retry's backoff
// paces them), and the first delivery after a failure at once.

const FAILING_AFTER_MS = 60000
const NOTE_EVERY_MS = 5000
const ERROR_MAX = 300

// The record after `note` ({ delivered: n } or { error: message }) at `now`.
// A failure after a delivery starts a new streak (failingSince).
function mergeNote (state, note, now) {
  const s = { delivered: 0, lastDeliveredAt: null, lastErrorAt: null, lastError: null, failingSince: null, ...(state || {}) }
  if (note.delivered) {
    s.delivered += note.delivered
    s.lastDeliveredAt = now
  }
  if (note.error) {
    const streak = s.failingSince !== null && !(s.lastDeliveredAt !== null && s.lastDeliveredAt > s.failingSince)
    s.failingSince = streak ? s.failingSince : now
    s.lastErrorAt = now
    s.lastError = String(note.error).slice(0, ERROR_MAX)
  }
  return s
}

// healthy (nothing failed since the last delivery), retrying (failing for
// less than a minute), failing (longer), or paused.
function deliveryStatus (state, { paused = false, now = Date.now() } = {}) {
  if (paused) return 'paused'
  if (!state || state.lastErrorAt === null || (state.lastDeliveredAt !== null && state.lastDeliveredAt >= state.lastErrorAt)) return 'healthy'
  return now - state.failingSince >= FAILING_AFTER_MS ? 'failing' : 'retrying'
}

// The circuit: a target that has failed for as long as the forwarder's
// longest backoff (`probeMs`) without a delivery is open, and is tried
// once per probeMs by all the workers of all the hosts between them (the
// first whose turn comes; the others see its failure in the record and
// wait again), not once per probeMs by each. Returns how long to wait
// before the next try (0: closed, or a probe is due).
function circuitWaitMs (state, { probeMs, now = Date.now() }) {
  if (!circuitOpen(state, { probeMs })) return 0
  return Math.max(0, state.lastErrorAt + probeMs - now)
}

function circuitOpen (state, { probeMs }) {
  if (!state || state.failingSince === null || state.lastErrorAt === null) return false
  if (state.lastDeliveredAt !== null && state.lastDeliveredAt >= state.lastErrorAt) return false
  return state.lastErrorAt - state.failingSince >= probeMs
}

// What an error says about a delivery: the forwarder's own message, with
// the network's code where there is one (never a URL: it may hold
// credentials).
function errorText (err) {
  const code = err.cause && err.cause.cause && err.cause.cause.code ? err.cause.cause.code : err.cause && err.cause.code
  return code ? `${err.message} (${code})` : err.message
}

// A worker's notes: `delivered(id, n)` after a batch is delivered,
// `failed(id, err)` after a try failed, `idle(id)` when nothing waits (the
// count kept is noted), `flush()` before it stops. A note
// the database does not take is dropped (the next one says the same).
function deliveryNotes (outbox, logger) {
  const local = new Map() // upstream id -> { pending, notedAt, failing }
  const of = (id) => {
    if (!local.has(id)) local.set(id, { pending: 0, notedAt: 0, failing: false })
    return local.get(id)
  }
  const note = (id, n) => outbox.noteDelivery(id, n).catch((err) => logger.debug({ err, upstream: id }, 'forwarding state not noted'))
  return {
    async delivered (id, count) {
      const s = of(id)
      s.pending += count
      if (!s.failing && Date.now() - s.notedAt < NOTE_EVERY_MS) return
      const n = s.pending
      Object.assign(s, { pending: 0, notedAt: Date.now(), failing: false })
      await note(id, { delivered: n })
    },
    async failed (id, err) {
      of(id).failing = true
      await note(id, { error: errorText(err) })
    },
    // nothing left to deliver for now: what was delivered is noted
    async idle (id) {
      const s = local.get(id)
      if (!s || !s.pending) return
      const n = s.pending
      Object.assign(s, { pending: 0, notedAt: Date.now() })
      await note(id, { delivered: n })
    },
    async flush () {
      for (const id of local.keys()) await this.idle(id)
    }
  }
}

module.exports = { mergeNote, deliveryStatus, deliveryNotes, circuitWaitMs, circuitOpen, FAILING_AFTER_MS }
