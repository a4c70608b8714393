'use strict'

// Values every worker must share, created once.
const { MBOX_CASE } = require('./schema')

function settingsRepository (db, { writer }) {
  return {
    getOrCreate: (name, value) => writer.call('settingGetOrCreate', name, value),
    // How this store keys mboxes, 'domain' or 'whole' (agent-keys.js; the
    // schema records it when it makes or upgrades the file).
    mboxCase: () => writer.call('settingGetOrCreate', MBOX_CASE, 'domain'),
    // The lease `name` for `holder` until `ms` from now, unless another
    // holder's has not run out: true when held (write-ops.js, leaseTake).
    takeLease: (name, holder, ms) => writer.call('leaseTake', { name, holder, ms })
  }
}

module.exports = { settingsRepository }
