'use strict'

// Overload sheds by waiting time, not only by memory: when a statement
// write accepted now would wait longer than LRS_MAX_WAIT_MS for its
// statements to be stored (the write batcher's estimate: the statements
// ahead of it at the recent drain rate, or a write stuck that long), it
// gets 429 with Retry-After at once, before its body is read, so the
// requests that are accepted keep their latency.

const { errors } = require('../errors')

// Until this worker has written for a while, it assumes it can store this
// many statements per second (well under what it does): without it, a
// burst of hundreds of requests arriving at once, before any of them has
// reached the batcher, was admitted whole and waited seconds.
const ASSUMED_STATEMENTS_PER_SECOND = 2000
// And until a request has reached the batcher, a request's statements are
// guessed from its size at this many bytes each (statements are 0.5 to
// 3 KB): counting each as one statement let 400 connections opening at
// once with 50 statements each all in, and the accepted P99 of the first
// seconds passed 2 s.
const GUESSED_BYTES_PER_STATEMENT = 1000

// `writerRestarting()`: writes wait for a moment because the store's
// writer is being replaced (pm2 reload), not because the LRS is over
// capacity; refusing them then failed requests of a reload that fails none
// otherwise. They still wait at most LRS_WRITER_WAIT_MS, and the batcher's
// in-flight bound still holds.
//
// `databaseDown()`: the last write found the database unreachable
// (src/resources/statements/write-batch.js). A write then cannot be stored now, and
// however long the writes ahead of it have waited says nothing of load:
// it gets 503 with Retry-After at once, not 429 (which tells a client it
// sent too much), except one at a time that goes through to try the
// database, so that the first write after it is back finds it, and every
// write goes through again from then on.
function createLoadShedder ({ maxWaitMs, batcher, writerRestarting = () => false, databaseDown = () => false }) {
  let admitted = 0 // statements of the writes admitted and not answered yet

  function isStatementWrite (req) {
    return req.path === '/statements' && (req.method === 'POST' || req.method === 'PUT')
  }

  function statementsIn (req) {
    const measured = batcher.statementsPerRequest()
    if (measured) return measured
    const length = Number(req.headers['content-length'])
    return length > 0 ? Math.max(1, Math.round(length / GUESSED_BYTES_PER_STATEMENT)) : 1
  }

  // The batcher's estimate sees only statements that reached it; requests
  // admitted earlier are still being read or validated. All admitted
  // statements, at the batcher's rate (Little's law), cover them.
  function admittedWaitMs () {
    const rate = batcher.statementsPerSecond() || ASSUMED_STATEMENTS_PER_SECOND
    return (admitted / rate) * 1000
  }

  return function shedLoad (req, res, next) {
    if (!isStatementWrite(req)) return next()
    if (writerRestarting()) return next()
    if (databaseDown() && batcher.statementsInFlight() > 0) {
      return next(errors.DatabaseUnavailable('the database cannot be reached; retry shortly', { headers: { 'Retry-After': '1' }, quiet: true }))
    }
    const wait = Math.max(batcher.expectedWaitMs(), admittedWaitMs())
    if (wait <= maxWaitMs) {
      const statements = statementsIn(req)
      admitted += statements
      res.once('close', () => { admitted -= statements })
      return next()
    }
    // The unread body is discarded and the connection kept: measured, closing
    // it made every refused client reconnect and raised the accepted
    // requests' P99 (7.4 s against 5.3 s at six times capacity).
    next(errors.TooManyRequests(`the LRS is busy (expected wait ${Math.round(wait)} ms); retry shortly`, { headers: { 'Retry-After': '1' } }))
  }
}

module.exports = { createLoadShedder }
