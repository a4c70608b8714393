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
    // holder's has not run out: true when held (write-settings.js, leaseTake).
    takeLease: (name, holder, ms) => writer.call('leaseTake', { name, holder, ms }),
    // [{ name, value }] of the settings named `name` or starting with it when it ends in ':'
    async named (names) {
      const select = db.prepare('SELECT name, value FROM settings WHERE name = ? OR (substr(?, -1) = \':\' AND substr(name, 1, length(?)) = ?) ORDER BY name')
      return names.flatMap((n) => select.all(n, n, n, n))
    },
    // Sets `name` to `to` if it is still `from`: true when it was.
    replace: (name, from, to) => writer.call('settingReplace', name, from, to)
  }
}

module.exports = { settingsRepository }
