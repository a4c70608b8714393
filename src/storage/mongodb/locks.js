'use strict'

// FerretDB workaround: on FerretDB 1.24 a filtered replaceOne/updateOne/
// deleteOne is not atomic — measured: 20 concurrent replaceOne({_id, etag})
// calls let up to 5 through. Inserting a unique _id *is* atomic there, so
// a conditional write holds a short lock document while it checks and
// writes. On MongoDB single-document writes are atomic and no lock is taken
// for them; what spans several documents (the outbox lease, leases of
// background jobs) takes one on both.
//
// A lock expires LOCK_TTL_MS after it was last renewed, so that one left
// by a crashed process frees itself; its holder renews it every third of
// that while it works, so that one held across many writes of a loaded
// database (FerretDB writes a document in ~12 ms, more under load: the
// outbox lease's hundred took past 10 s) is not taken from a holder still
// at work.

const crypto = require('node:crypto')
const { DUPLICATE_KEY } = require('./insert-many')
const { errors } = require('../../errors')

const LOCK_TTL_MS = 10000
const RETRY_MS = 2
const MAX_WAIT_MS = 15000
const RELEASE_RETRY_MS = 200

// `maxWaitMs`: tests shorten the wait.
function idLocks (db, { maxWaitMs = MAX_WAIT_MS } = {}) {
  const col = db.collection('locks')

  async function acquire (id) {
    const owner = crypto.randomUUID()
    const deadline = Date.now() + maxWaitMs
    for (let wait = RETRY_MS; ; wait = Math.min(wait * 2, 50)) {
      try {
        await col.insertOne({ _id: id, owner, expiresAt: new Date(Date.now() + LOCK_TTL_MS) })
        return owner
      } catch (err) {
        if (err.code !== DUPLICATE_KEY) throw err
      }
      // A lock left by a crashed worker expires.
      await col.deleteOne({ _id: id, expiresAt: { $lt: new Date() } })
      // Only a database that answers nothing for longer than a lock lives
      // gets here (a FerretDB out of connections): the client may retry.
      if (Date.now() > deadline) throw errors.DatabaseUnavailable(undefined, { cause: new Error(`lock ${id} not acquired within ${maxWaitMs} ms`) })
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }

  // A lock whose release failed (the database went away while it was held)
  // is released again as soon as the database answers, rather than left to
  // expire: every write of that id would wait out LOCK_TTL_MS for it, and
  // after an outage the clients' retries are exactly such writes.
  function releaseLater (id, owner) {
    const until = Date.now() + LOCK_TTL_MS
    const attempt = () => col.deleteOne({ _id: id, owner }).catch(() => {
      if (Date.now() < until) setTimeout(attempt, RELEASE_RETRY_MS).unref()
    })
    setTimeout(attempt, RELEASE_RETRY_MS).unref()
  }

  return {
    async withLock (id, fn) {
      const owner = await acquire(id)
      const renewing = setInterval(() => {
        col.updateOne({ _id: id, owner }, { $set: { expiresAt: new Date(Date.now() + LOCK_TTL_MS) } }).catch(() => {})
      }, LOCK_TTL_MS / 3)
      renewing.unref()
      try {
        return await fn()
      } finally {
        clearInterval(renewing)
        await col.deleteOne({ _id: id, owner }).catch((err) => {
          releaseLater(id, owner)
          throw err
        })
      }
    }
  }
}

module.exports = { idLocks }
