'use strict'

// MongoDB driver errors, translated into the error catalogue at the storage
// boundary, so nothing outside src/storage/ knows a driver error.

const { errors } = require('../../errors')

const MAX_TIME_MS_EXPIRED = 50
const UNAVAILABLE_NAMES = new Set(['MongoServerSelectionError', 'MongoNetworkError', 'MongoNetworkTimeoutError',
  'MongoNotConnectedError', 'MongoTopologyClosedError', 'MongoPoolClearedError'])
const UNAVAILABLE_MESSAGE = /topology is closed|not connected|ECONNREFUSED|ECONNRESET|connection .* closed|server selection/i

function isUnavailable (err) {
  const name = err.name || ''
  return UNAVAILABLE_NAMES.has(name) ||
    (name.startsWith('Mongo') && UNAVAILABLE_MESSAGE.test(err.message || '')) ||
    (typeof err.hasErrorLabel === 'function' && err.hasErrorLabel('RetryableWriteError'))
}

function translateError (err) {
  if (!err || typeof err !== 'object' || err.name === 'LrsError') return err
  if (err.code === MAX_TIME_MS_EXPIRED) return errors.QueryTimeout(undefined, { cause: err })
  if (isUnavailable(err)) return errors.DatabaseUnavailable(undefined, { cause: err })
  return err
}

module.exports = { translateError }
