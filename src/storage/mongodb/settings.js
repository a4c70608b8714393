'use strict'

// Values every worker must share, created once: { _id: name, value }.
const { insertManyReportingDuplicates, DUPLICATE_KEY } = require('./insert-many')

// The setting that says how this database keys mboxes (agent-keys.js).
const MBOX_CASE = 'mbox_case'

// Records it once, when a worker first connects: 'whole' for a database
// that already holds statements or documents without it (written before
// 2026-12, its keys of the whole address in lower case), else 'domain'.
// Every worker decides before it serves a request, and a database without
// the setting holds only what an older LRS wrote, so all decide alike.
async function recordMboxCase (db) {
  const col = db.collection('settings')
  if (await col.findOne({ _id: MBOX_CASE })) return
  const [statement, document] = await Promise.all(['statements', 'documents'].map((name) => db.collection(name).findOne({}, { projection: { _id: 1 } })))
  await insertManyReportingDuplicates(col, [{ _id: MBOX_CASE, value: statement || document ? 'whole' : 'domain' }])
}

function settingsRepository (db, { queryTimeoutMs, locks }) {
  const col = db.collection('settings')
  return {
    // How this database keys mboxes, 'domain' or 'whole' (recordMboxCase).
    async mboxCase () {
      const row = await col.findOne({ _id: MBOX_CASE }, { maxTimeMS: queryTimeoutMs })
      return row ? row.value : 'domain'
    },
    // The stored value of `name`, or `value` stored now if there is none
    // (the first worker to ask wins; the others read its value).
    async getOrCreate (name, value) {
      await insertManyReportingDuplicates(col, [{ _id: name, value }])
      const row = await col.findOne({ _id: name }, { maxTimeMS: queryTimeoutMs })
      return row.value
    },
    // [{ name, value }] of the settings named `name` or starting with it when it ends in ':'
    async named (names) {
      const out = []
      for (const n of names) {
        const filter = n.endsWith(':') ? { _id: { $gte: n, $lt: n.slice(0, -1) + ';' } } : { _id: n }
        for (const row of await col.find(filter, { sort: { _id: 1 }, maxTimeMS: queryTimeoutMs }).toArray()) out.push({ name: row._id, value: row.value })
      }
      return out
    },
    // Sets `name` to `to` if it is still `from`: true when it was.
    async replace (name, from, to) {
      return (await col.updateOne({ _id: name, value: from }, { $set: { value: to } })).modifiedCount === 1
    },
    // The lease `name` for `holder` until `ms` from now, unless another
    // holder's has not run out: true when held. Read and renewed under a
    // lock (locks.js): on FerretDB a filtered update is not atomic, and two
    // hosts taking a lease that ran out at once both ran what it guards.
    async takeLease (name, holder, ms) {
      const _id = 'lease:' + name
      return locks.withLock(_id, async () => {
        const now = Date.now()
        try {
          await col.insertOne({ _id, holder, until: now + ms })
          return true
        } catch (err) {
          if (err.code !== DUPLICATE_KEY) throw err
        }
        const lease = await col.findOne({ _id }, { maxTimeMS: queryTimeoutMs })
        if (lease.holder !== holder && lease.until >= now) return false
        await col.updateOne({ _id }, { $set: { holder, until: now + ms } })
        return true
      })
    }
  }
}

module.exports = { settingsRepository, recordMboxCase, MBOX_CASE }
