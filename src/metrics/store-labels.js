'use strict'

// The `store` label of the per-store metrics: a store's id (what operators
// know it by), from its number (what a credential and a record carry).
// Read from storage at start, and again when a number is not known yet (a
// store made after), at most every REFRESH_MS for each number. The label set is the stores
// of the LRS: bounded by them, never by client input.

const REFRESH_MS = 5000

function createStoreLabels (storage) {
  let ids = new Map([[0, 'default']])
  let reading = null
  const missed = new Map() // number -> when it was last read for
  function refresh () {
    if (!reading) {
      reading = storage.stores.all()
        .then((all) => { ids = new Map(all.map((s) => [s.number, s.id])) })
        .catch(() => {}) // the next unknown number tries again
        .finally(() => { reading = null })
    }
    return reading
  }
  storage.ready.then(refresh, () => {})
  return {
    // The id of store `number`, or its number while it cannot be read.
    async labelOf (number = 0) {
      if (!ids.has(number) && !(Date.now() - (missed.get(number) || 0) < REFRESH_MS)) {
        missed.set(number, Date.now())
        await refresh()
      }
      return ids.get(number) ?? String(number)
    }
  }
}

module.exports = { createStoreLabels }
