'use strict'

// Issue 55: an engine error the LRS does not know is a 503 the client may
// retry, never an unhandled 500; the driver's ways of saying the database
// is away are 503 too, and a query past its deadline 504.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { MongoServerError, MongoNetworkTimeoutError, MongoServerSelectionError, MongoError } = require('mongodb')
const { translateError } = require('../../src/storage/mongodb/errors')

test('MongoDB errors become catalogue errors: unknown ones 503, a deadline 504, our own and programming errors as they are', () => {
  // FerretDB's own reading of a cancelled query, unlike MongoDB's MaxTimeMSExpired
  const unknown = translateError(new MongoServerError({ message: 'context canceled', code: 1, codeName: 'InternalError' }))
  assert.equal(unknown.code, 'LRS_ERR_DATABASE_UNAVAILABLE')
  assert.equal(unknown.status, 503)
  assert.equal(unknown.cause.message, 'context canceled', 'the cause is kept for the log')
  assert.equal(translateError(new MongoError('something the driver says')).status, 503)
  assert.equal(translateError(new MongoNetworkTimeoutError('connection timed out')).status, 503)
  assert.equal(translateError(new MongoServerSelectionError('connect ECONNREFUSED', { type: 'Unknown', servers: new Map() })).status, 503)
  const waitQueue = new Error('Timed out while checking out a connection from connection pool')
  waitQueue.name = 'WaitQueueTimeoutError'
  assert.equal(translateError(waitQueue).status, 503)
  assert.equal(translateError(new MongoServerError({ message: 'operation exceeded time limit', code: 50 })).status, 504)
  const ours = translateError(new TypeError('a bug of ours'))
  assert.equal(ours.name, 'TypeError', 'not an engine error: left for the 500 it is')
})
