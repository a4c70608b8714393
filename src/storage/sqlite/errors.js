'use strict'

// SQLite errors, translated into the error catalogue at the storage
// boundary: a full disk is StoreFull (507, see disk-full.js); a database
// kept locked past the busy timeout, or a disk that is failing, is
// DatabaseUnavailable (503); the rest stays an internal error.

const { errors } = require('../../errors')

const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|READONLY)/

function translateError (err) {
  if (!err || typeof err !== 'object' || err.name === 'LrsError') return err
  if (err.code === 'SQLITE_FULL') return errors.StoreFull(undefined, { cause: err })
  if (typeof err.code === 'string' && UNAVAILABLE.test(err.code)) return errors.DatabaseUnavailable(undefined, { cause: err })
  return err
}

module.exports = { translateError }
