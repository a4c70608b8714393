'use strict'

// MongoDB driver errors, translated into the error catalogue at the storage
// boundary, so nothing outside src/storage/ knows a driver error.

const { MongoError } = require('mongodb')
const { errors } = require('../../errors')

const MAX_TIME_MS_EXPIRED = 50
const UNAVAILABLE_NAMES = new Set(['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError',
  'MongoNotConnectedError', 'MongoTopologyClosedError', 'MongoPoolClearedError', 'PoolClearedOnNetworkError',
  'WaitQueueTimeoutError'])
const UNAVAILABLE_MESSAGE = /topology is closed|not connected|ECONNREFUSED|ECONNRESET|connection .* closed|server selection/i

function isUnavailable (err) {
  const name = err.name || ''
  return UNAVAILABLE_NAMES.has(name) ||
    (name.startsWith('Mongo') && UNAVAILABLE_MESSAGE.test(err.message || '')) ||
    (typeof err.hasErrorLabel === 'function' && err.hasErrorLabel('RetryableWriteError'))
}

// Any other error of the driver or the database is one the LRS does not
// know (FerretDB's query deadline, "context canceled", reads unlike
// MongoDB's MaxTimeMSExpired; a member in an unexpected state): the client
// gets 503 with Retry-After and its request id, the log gets the error in
// full, and the request can be retried (statements carry their ids).
function translateError (err) {
  if (!err || typeof err !== 'object' || err.name === 'LrsError') return err
  if (err.code === MAX_TIME_MS_EXPIRED) return errors.QueryTimeout(undefined, { cause: err })
  if (isUnavailable(err) || err instanceof MongoError) return errors.DatabaseUnavailable(undefined, { cause: err })
  return err
}

module.exports = { translateError }
