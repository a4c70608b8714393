'use strict'

// Values every worker must share, created once.

function settingsRepository (db, { writer }) {
  return {
    getOrCreate: (name, value) => writer.call('settingGetOrCreate', name, value)
  }
}

module.exports = { settingsRepository }
