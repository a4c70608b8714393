'use strict'

// A Map that holds at most `max` entries, forgetting the oldest first, for
// memories keyed by what clients send (so clients cannot grow it without bound).
class BoundedMap extends Map {
  constructor (max) {
    super()
    this.max = max
  }

  set (key, value) {
    if (!this.has(key) && this.size >= this.max) this.delete(this.keys().next().value)
    return super.set(key, value)
  }
}

module.exports = { BoundedMap }
