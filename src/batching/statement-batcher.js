'use strict'

// Group commit for statements. Statements from concurrent requests wait in
// one queue per worker and are written with as few insertMany calls as
// possible: a write starts at once when the database is idle, otherwise
// when the running write finishes (or, with up to `maxConcurrentWrites`,
// as soon as a full batch is waiting). No timer per request. A request is
// answered only after every one of its statements is acknowledged with the
// configured write concern.
//
// Conflicts (Communication 2.1.1/2.1.2): an id that already exists with
// equivalent content is not stored twice and is not an error; different
// content fails that request only (409), and that request's statements that
// this batch did insert are removed again, so a request is all or nothing.

const { errors } = require('../errors')

function createStatementBatcher ({ repository, maxBatch, maxInFlight, maxConcurrentWrites = 4, sameStatement, afterStore, logger }) {
  const queue = [] // pending requests: { records, resolve, reject, acceptedAt }
  const active = new Set() // requests accepted and not yet answered
  let queuedStatements = 0
  let inFlight = 0
  let writing = 0
  let scheduled = false
  const idleWaiters = []

  function submit (records) {
    // Backpressure: refuse at once rather than queue without bound; a
    // request larger than the whole budget is still taken when idle.
    if (inFlight > 0 && inFlight + records.length > maxInFlight) {
      throw errors.TooManyRequests(`more than ${maxInFlight} statements are waiting to be stored; retry shortly`, { headers: { 'Retry-After': '1' } })
    }
    inFlight += records.length
    return new Promise((resolve, reject) => {
      const req = { records, resolve, reject, acceptedAt: records.length ? records[0].doc.stored : new Date() }
      queue.push(req)
      active.add(req)
      queuedStatements += records.length
      schedule()
    })
  }

  function schedule () {
    if (scheduled) return
    if (writing === 0 || (queuedStatements >= maxBatch && writing < maxConcurrentWrites)) {
      scheduled = true
      // Let requests parsed in this same turn of the event loop join the batch.
      setImmediate(flush)
    }
  }

  function takeBatch () {
    const batch = []
    let count = 0
    while (queue.length && (count === 0 || count + queue[0].records.length <= maxBatch)) {
      const req = queue.shift()
      batch.push(req)
      count += req.records.length
    }
    queuedStatements -= count
    return batch
  }

  function flush () {
    scheduled = false
    while (queue.length && (writing === 0 || (queuedStatements >= maxBatch && writing < maxConcurrentWrites))) {
      const batch = takeBatch()
      writing++
      write(batch).finally(() => {
        writing--
        for (const req of batch) {
          inFlight -= req.records.length
          active.delete(req)
        }
        if (queue.length) schedule()
        else if (writing === 0) while (idleWaiters.length) idleWaiters.shift()()
      })
    }
  }

  async function write (batch) {
    const docs = []
    for (const req of batch) for (const r of req.records) docs.push(r.doc)
    let failed
    try {
      const existing = docs.length ? await repository.insertMany(docs) : []
      failed = existing.length ? await resolveConflicts(batch, existing) : new Map()
      const ok = batch.filter((req) => !failed.has(req))
      await applyReferences(ok)
      if (afterStore) await afterStore(ok.flatMap((req) => req.records))
    } catch (err) {
      logger.warn({ err: err.message, statements: docs.length }, 'statement batch write failed')
      for (const req of batch) req.reject(err)
      return
    }
    for (const req of batch) {
      if (failed.has(req)) req.reject(errors.ConflictingStatement(`statement ${failed.get(req)} already exists with different content`))
      else req.resolve()
    }
  }

  // Some ids existed: compare with what is stored; requests whose statements
  // differ fail, and what this batch inserted for them is removed, unless
  // another, successful request of the batch carries the same statement.
  async function resolveConflicts (batch, existingIds) {
    const duplicate = new Set(existingIds)
    const stored = await repository.findBodiesByIds([...duplicate])
    const failed = new Map()
    for (const req of batch) {
      for (const r of req.records) {
        if (!duplicate.has(r.doc._id)) continue
        // The stored copy may be this same batch's insert by another request.
        const body = stored.get(r.doc._id)
        if (body !== undefined && body !== r.doc.body && !sameStatement(body, r)) {
          failed.set(req, r.doc._id)
          break
        }
      }
    }
    if (failed.size) {
      const keep = new Set()
      for (const req of batch) if (!failed.has(req)) for (const r of req.records) keep.add(r.doc._id)
      const remove = []
      for (const req of failed.keys()) {
        for (const r of req.records) if (!duplicate.has(r.doc._id) && !keep.has(r.doc._id)) remove.push(r.doc._id)
      }
      await repository.deleteByIds(remove)
    }
    return failed
  }

  async function applyReferences (requests) {
    const voids = []
    const refs = []
    for (const req of requests) {
      for (const r of req.records) {
        if (r.doc.ref) refs.push(r.doc.ref)
        if (r.doc.voiding) voids.push(r.doc.ref)
      }
    }
    if (refs.length) await repository.markReferenced(refs)
    if (voids.length) await repository.markVoided(voids)
  }

  return {
    submit,
    get inFlight () { return inFlight },
    // Earliest `stored` still being written in this worker (for Consistent-Through).
    oldestPending () {
      let oldest = null
      for (const req of active) if (!oldest || req.acceptedAt < oldest) oldest = req.acceptedAt
      return oldest
    },
    drain () {
      if (inFlight === 0) return Promise.resolve()
      return new Promise((resolve) => idleWaiters.push(resolve))
    }
  }
}

module.exports = { createStatementBatcher }
