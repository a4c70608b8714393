'use strict'

// The `store` label of the per-store metrics: a store's id (what operators
// know it by), from its number (what a credential and a record carry).
// Read from storage at start, and again when a number is not known (a store
// made after). A number still unknown after a read that began after it was
// asked for (a deleted store's request in flight) is labelled with the number
// and not read for again within REFRESH_MS. The label set is the stores of
// the LRS: bounded by them, never by client input.

const REFRESH_MS = 5000

function createStoreLabels (storage) {
  let ids = new Map([[0, 'default']])
  let reading = null
  let queued = null
  const missing = new Map() // number -> when a fresh read did not find it
  function read () {
    reading = storage.stores.all()
      .then((all) => { ids = new Map(all.map((s) => [s.number, s.id])) })
      .catch(() => {}) // the next unknown number tries again
      .finally(() => { reading = null })
    return reading
  }
  // A read that begins now, or right after the one in flight: one begun
  // before a store was made would not know it (a request of a new store
  // once got the store's number as its label for good).
  function freshRead () {
    if (!reading) return read()
    if (!queued) queued = reading.then(() => { queued = null; return reading || read() })
    return queued
  }
  storage.ready.then(read, () => {})
  return {
    // The id of store `number`, or its number when no store has it.
    async labelOf (number = 0) {
      if (!ids.has(number) && !(Date.now() - (missing.get(number) || 0) < REFRESH_MS)) {
        await freshRead()
        if (!ids.has(number)) missing.set(number, Date.now())
      }
      return ids.get(number) ?? String(number)
    }
  }
}

module.exports = { createStoreLabels }
