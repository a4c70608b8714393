'use strict'

// Values every worker must share, created once.

function settingsRepository (db, { writer }) {
  return {
    getOrCreate: (name, value) => writer.call('settingGetOrCreate', name, value),
    // The lease `name` for `holder` until `ms` from now, unless another
    // holder's has not run out: true when held (write-ops.js, leaseTake).
    takeLease: (name, holder, ms) => writer.call('leaseTake', { name, holder, ms })
  }
}

module.exports = { settingsRepository }
