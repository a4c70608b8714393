'use strict'

// A map that holds at most `max` entries, for memories keyed by what
// clients send (so clients cannot grow it without bound) and caches of
// terms, which come in the hundreds of thousands.
//
// Two generations: new entries go into the young one; once it holds half
// of `max`, it becomes the old one and the old one is dropped whole. A
// key read or written from the old generation moves to the young one, so
// what is in use stays and what is not is forgotten within two
// generations. Every call is O(1). (It used to be a Map forgetting its
// oldest key through `keys().next()`: V8 leaves a deleted entry as a hole
// until the table is rebuilt, and a new iterator steps over every hole
// at the front, so each eviction of a full map of 200,000 terms walked
// tens of thousands of them: the SQLite writer's CPU per statement went
// from 107 to 660 us once new terms kept coming, docs/internals.md.)
class BoundedMap {
  constructor (max) {
    this.max = max
    this.generation = Math.max(1, Math.ceil(max / 2))
    this.young = new Map()
    this.old = new Map()
  }

  get size () {
    return this.young.size + this.old.size
  }

  has (key) {
    return this.young.has(key) || this.old.has(key)
  }

  get (key) {
    const value = this.young.get(key)
    if (value !== undefined || !this.old.has(key)) return value
    const kept = this.old.get(key)
    this.old.delete(key)
    this.#put(key, kept)
    return kept
  }

  set (key, value) {
    if (this.young.has(key)) {
      this.young.set(key, value)
      return this
    }
    this.old.delete(key)
    this.#put(key, value)
    return this
  }

  #put (key, value) {
    if (this.young.size >= this.generation) {
      this.old = this.young
      this.young = new Map()
    }
    this.young.set(key, value)
  }

  delete (key) {
    return this.young.delete(key) || this.old.delete(key)
  }

  clear () {
    this.young.clear()
    this.old.clear()
  }

  * entries () {
    yield * this.old
    yield * this.young
  }

  * keys () {
    for (const [key] of this.entries()) yield key
  }

  * values () {
    for (const [, value] of this.entries()) yield value
  }

  [Symbol.iterator] () {
    return this.entries()
  }
}

module.exports = { BoundedMap }
