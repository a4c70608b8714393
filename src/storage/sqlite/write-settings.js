'use strict'

// The writes of the settings table's own entries (settings.js): a value
// made if absent (signing keys, sealed secrets), one replaced if it is
// still the one read (lrs secrets), and the leases that let one process
// of many run a periodic job (the stores' retention). Apart because these
// are compare-and-set primitives that any part of the LRS may use, not the
// writes of one resource.

function settingWrites ({ db }) {
  return {
    // The lease `name` for `holder` until `ms` from now, when no other
    // holder has one that has not run out (settings, 'lease:<name>'). true: held.
    leaseTake ({ name, holder, ms }) {
      const key = 'lease:' + name
      const now = Date.now()
      const current = db.prepare('SELECT value FROM settings WHERE name = ?').pluck().get(key)
      const lease = current && JSON.parse(current)
      if (lease && lease.holder !== holder && lease.until > now) return false
      db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value').run(key, JSON.stringify({ holder, until: now + ms }))
      return true
    },

    settingReplace (name, from, to) {
      return db.prepare('UPDATE settings SET value = ? WHERE name = ? AND value = ?').run(to, name, from).changes === 1
    },
    settingGetOrCreate (name, value) {
      db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(name, value)
      return db.prepare('SELECT value FROM settings WHERE name = ?').pluck().get(name)
    }
  }
}

module.exports = { settingWrites }
