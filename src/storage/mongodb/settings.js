'use strict'

// Values every worker must share, created once: { _id: name, value }.
const { insertManyReportingDuplicates, DUPLICATE_KEY } = require('./insert-many')

function settingsRepository (db, { queryTimeoutMs }) {
  const col = db.collection('settings')
  return {
    // The stored value of `name`, or `value` stored now if there is none
    // (the first worker to ask wins; the others read its value).
    async getOrCreate (name, value) {
      await insertManyReportingDuplicates(col, [{ _id: name, value }])
      const row = await col.findOne({ _id: name }, { maxTimeMS: queryTimeoutMs })
      return row.value
    },
    // The lease `name` for `holder` until `ms` from now, unless another
    // holder's has not run out: true when held. (On FerretDB a filtered
    // update is not atomic, so two processes may both take one that ran
    // out at once: what a lease guards must bear being done twice.)
    async takeLease (name, holder, ms) {
      const _id = 'lease:' + name
      const now = Date.now()
      try {
        await col.insertOne({ _id, holder, until: now + ms })
        return true
      } catch (err) {
        if (err.code !== DUPLICATE_KEY) throw err
      }
      const { matchedCount } = await col.updateOne({ _id, $or: [{ until: { $lt: now } }, { holder }] }, { $set: { holder, until: now + ms } })
      return matchedCount === 1
    }
  }
}

module.exports = { settingsRepository }
