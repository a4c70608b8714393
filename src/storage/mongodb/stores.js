'use strict'

// Stores on MongoDB: { _id: id, number, name, createdAt }, the id unique
// as the document key (FerretDB enforces no other unique index); numbers
// from a counter in settings, each given once. The default store (0) is a
// document only once renamed. A deleted store's document is kept under
// '#<number>|<id>' with `deletedAt` (its id is free at once) until, and
// after, its data is purged (store-purge.js, `purgedAt`). The default
// store's createdAt is the setting CREATED (recordCreation) unless its
// document has one (a store moved from SQLite, transfer/migrate.js).

const { insertManyReportingDuplicates } = require('./insert-many')
const { credentialsChanged } = require('./credentials')
const { FORWARDING_COLLECTIONS } = require('./outbox')
const { qualify, deletedId, formerId, prefixBounds } = require('../../stores/store-keys')
const { storeUpstreamPrefix } = require('../../forwarding/upstreams')

const DEFAULT = { number: 0, id: 'default', name: 'Default store', createdAt: null, retentionDays: null, forwardUrls: [] }
const COUNTER = 'store_numbers'
const CREATED = 'created_at'
const LIVE = { deletedAt: { $exists: false } }

const prefixRange = (prefix) => {
  const [low, high] = prefixBounds(prefix)
  return { $gte: low, $lt: high }
}

// Every key of store `number` starts with 's<n>|' (store-keys.js): a
// range of _id (or of another qualified field).
function keyRange (number) {
  return prefixRange(qualify(number, ''))
}

// When the LRS first made this database's data (a Date, or null), as
// recorded by the first process to record it: at the first start, now. A
// database of an LRS that did not record it (before 2026-12) gets the
// earliest time it kept, its oldest credential's or store's createdAt
// (the bootstrap credential's is the first start's); with neither, but
// statements or documents, null: their times say when they were stored or
// imported, not when the LRS began.
async function recordCreation (db, read) {
  const settings = db.collection('settings')
  const recorded = () => settings.findOne({ _id: CREATED }, read)
  const found = await recorded()
  if (found) return found.value
  const oldest = await Promise.all(['credentials', 'stores'].map((name) => db.collection(name)
    .find({ createdAt: { $type: 'date' } }, { projection: { createdAt: 1 }, ...read }).sort({ createdAt: 1 }).limit(1).toArray()))
  const times = oldest.flat().map((d) => d.createdAt.getTime())
  let value = new Date(Math.min(Date.now(), ...times))
  if (!times.length) {
    const held = await Promise.all(['statements', 'documents'].map((name) => db.collection(name).findOne({}, { projection: { _id: 1 }, ...read })))
    if (held.some(Boolean)) value = null
  }
  await insertManyReportingDuplicates(settings, [{ _id: CREATED, value }])
  return (await recorded()).value
}

function storesRepository (db, { queryTimeoutMs }) {
  const col = db.collection('stores')
  const settings = db.collection('settings')
  const read = { maxTimeMS: queryTimeoutMs }
  let creation = null // Promise of recordCreation's answer, which never changes once made
  const created = () => {
    if (!creation) {
      creation = recordCreation(db, read)
      creation.catch(() => { creation = null }) // a database hiccup is not remembered
    }
    return creation
  }
  return {
    // The time the default store is shown as created: recorded at start
    // (index.js), or by the first listing if that failed.
    created,
    // 'created' or 'taken' (the id)
    async create ({ id, name }) {
      if (id === DEFAULT.id || await col.findOne({ _id: id }, { projection: { _id: 1 }, ...read })) return 'taken'
      // a number is used once, even when its insert finds the id taken meanwhile
      const counter = await settings.findOneAndUpdate({ _id: COUNTER }, { $inc: { value: 1 } }, { upsert: true, returnDocument: 'after' })
      const number = counter.value
      const taken = await insertManyReportingDuplicates(col, [{ _id: id, number, name, createdAt: new Date() }])
      return taken.length === 0 ? 'created' : 'taken'
    },
    // false when there is no such store (the default store's document is
    // made by its first rename)
    async rename ({ id, name }) {
      if (id === DEFAULT.id) {
        await col.updateOne({ _id: id }, { $set: { name }, $setOnInsert: { number: 0, createdAt: null } }, { upsert: true })
        return true
      }
      const { matchedCount } = await col.updateOne({ _id: id, ...LIVE }, { $set: { name } })
      return matchedCount === 1
    },
    // Statements kept `days` after they were stored (src/stores/retention.js;
    // null: for good). false when there is no such store.
    async setRetention ({ id, days }) {
      const update = days === null ? { $unset: { retentionDays: '' } } : { $set: { retentionDays: days } }
      if (id === DEFAULT.id) {
        await col.updateOne({ _id: id }, { ...update, $setOnInsert: { number: 0, name: DEFAULT.name, createdAt: null } }, { upsert: true })
        return true
      }
      const { matchedCount } = await col.updateOne({ _id: id, ...LIVE }, update)
      return matchedCount === 1
    },
    // The upstreams its statements are forwarded to (src/forwarding/upstreams.js;
    // [] for none), the queued entries and dead letters of `dropUpstreams`
    // removed. false when there is no such store.
    async setForwarding ({ id, urls, dropUpstreams }) {
      const update = urls.length ? { $set: { forwardUrls: urls } } : { $unset: { forwardUrls: '' } }
      if (id === DEFAULT.id) await col.updateOne({ _id: id }, { ...update, $setOnInsert: { number: 0, name: DEFAULT.name, createdAt: null } }, { upsert: true })
      else if ((await col.updateOne({ _id: id, ...LIVE }, update)).matchedCount !== 1) return false
      if (dropUpstreams.length) {
        const filter = { upstream: { $in: dropUpstreams } }
        await Promise.all(FORWARDING_COLLECTIONS.map((c) => db.collection(c).deleteMany(filter)))
      }
      await credentialsChanged(db)
      return true
    },
    // Gone at once for every request, its credentials with it; its data is
    // purged after (store-purge.js). false: no such store, or the default
    // one. The deleted store's document is written before the live one
    // goes: a stop between the two leaves the store live, deleted again by
    // the next try.
    async remove ({ id }) {
      if (id === DEFAULT.id) return false
      const store = await col.findOne({ _id: id, ...LIVE }, read)
      if (!store) return false
      const { forwardUrls, ...kept } = store
      await insertManyReportingDuplicates(col, [{ ...kept, _id: deletedId(store.number, id), deletedAt: new Date() }])
      await db.collection('credentials').deleteMany({ store: store.number })
      await db.collection('forwarders').deleteMany({ store: store.number })
      await db.collection('saved_reports').deleteMany({ store: store.number })
      // its own upstreams' entries (the LRS-wide ones' go as the forwarder finds their statements gone)
      const own = { upstream: prefixRange(storeUpstreamPrefix(store.number)) }
      await Promise.all(FORWARDING_COLLECTIONS.map((c) => db.collection(c).deleteMany(own)))
      await credentialsChanged(db)
      const { deletedCount } = await col.deleteOne({ _id: id })
      return deletedCount === 1
    },
    async all () {
      const [docs, since] = await Promise.all([col.find(LIVE, read).sort({ number: 1 }).toArray(), created()])
      const rows = docs.map((r) => ({ number: r.number, id: r._id, name: r.name, createdAt: r.createdAt || (r.number === 0 ? since : null), retentionDays: r.retentionDays ?? null, forwardUrls: r.forwardUrls || [] }))
      return rows.some((r) => r.number === 0) ? rows : [{ ...DEFAULT, createdAt: since }, ...rows]
    },
    // Deleted stores whose data is still being purged.
    async deleting () {
      const rows = await col.find({ deletedAt: { $exists: true }, purgedAt: { $exists: false } }, read).sort({ number: 1 }).toArray()
      return rows.map((r) => ({ number: r.number, id: formerId(r._id), name: r.name, deletedAt: r.deletedAt }))
    },
    // What a store holds besides its statements: its documents and
    // attachments, how many and their bytes.
    async holdings (number) {
      // summed here: FerretDB's $group sums no field (its $sum of '$length' is 0)
      const sum = async (collection, match) => {
        let n = 0
        let bytes = 0
        for await (const d of db.collection(collection).find(match, { projection: { length: 1 }, ...read })) {
          n++
          bytes += d.length || 0
        }
        return { n, bytes }
      }
      const [docs, files] = await Promise.all([
        // `length`: the content's bytes (documents.js; none in documents written before stores could be deleted)
        sum('documents', number ? { store: number } : { store: null }),
        sum('attachments', number ? { _id: keyRange(number) } : { _id: { $not: /^s\d+\|/ } })
      ])
      return { documents: docs.n, documentBytes: docs.bytes, attachments: files.n, attachmentBytes: files.bytes }
    }
  }
}

module.exports = { storesRepository, keyRange }
