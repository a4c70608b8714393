'use strict'

// Values every worker must share, created once: { _id: name, value }.
const { insertManyReportingDuplicates } = require('./insert-many')

function settingsRepository (db, { queryTimeoutMs }) {
  const col = db.collection('settings')
  return {
    // The stored value of `name`, or `value` stored now if there is none
    // (the first worker to ask wins; the others read its value).
    async getOrCreate (name, value) {
      await insertManyReportingDuplicates(col, [{ _id: name, value }])
      const row = await col.findOne({ _id: name }, { maxTimeMS: queryTimeoutMs })
      return row.value
    }
  }
}

module.exports = { settingsRepository }
