'use strict'

// The statements collection. One document per statement:
//   _id            statement id
//   stored         Date, the sort key (ties broken by _id)
//   body           the statement as JSON text. FerretDB rejects keys with
//                  dots, and extension keys are IRIs, so the body is kept as
//                  text; it is also exactly what GET returns, unparsed.
//   voided         true once a voiding statement targets it
//   voiding        true for voiding statements (which cannot be voided)
//   ref            target id when the object is a StatementRef
//   referenced     true once some StatementRef targets it (for 2.1.4 filters)
//   authorityKey   IFI key of the authority (statements/read/mine)
//   verb, agents, relAgents, activities, relActivities, registration:
//                  the top-level indexed fields the query parameters need.
//
// A voiding statement or a StatementRef may arrive before its target
// (another client, another worker, a forwarder catching up). Its flag then
// goes into a marker document { _id, awaitingStatement: true, voided |
// referenced } that the target replaces when it is stored, keeping the flags
// (Data 2.3.2.s2.b3: voided whenever the LRS contains a voiding statement
// for it). Markers have no body and never match voided: false, so readers
// skip them. Written without reading: the write path reads only when an
// insert reports duplicate ids.

const { insertManyReportingDuplicates, onlyDuplicateKeyErrors } = require('./insert-many')

function statementsRepository (db, { queryTimeoutMs }) {
  const col = db.collection('statements')

  // Sets flags on statements, or leaves markers for ids not stored yet.
  // `condition` limits which stored statements take the flags; a stored
  // statement outside it makes the upsert hit its _id, which is ignored.
  async function setFlagsOrMark (ids, flags, condition = {}) {
    if (!ids.length) return
    const ops = ids.map((id) => ({
      updateOne: { filter: { _id: id, ...condition }, update: { $set: flags, $setOnInsert: { awaitingStatement: true } }, upsert: true }
    }))
    try {
      await col.bulkWrite(ops, { ordered: false })
    } catch (err) {
      if (!onlyDuplicateKeyErrors(err)) throw err
    }
  }

  // Of the ids an insert found taken, those held by markers get the
  // statement, with the marker's flags. Returns the ids still taken.
  async function replaceMarkers (docs, takenIds) {
    const markers = await col.find({ _id: { $in: takenIds }, awaitingStatement: true }, { maxTimeMS: queryTimeoutMs }).toArray()
    if (!markers.length) return takenIds
    const byId = new Map(docs.map((d) => [d._id, d]))
    const replaced = new Set()
    for (const marker of markers) {
      const doc = byId.get(marker._id)
      const flags = { voided: marker.voided === true && !doc.voiding, referenced: marker.referenced === true }
      const result = await col.replaceOne({ _id: marker._id, awaitingStatement: true }, { ...doc, ...flags })
      if (result.modifiedCount === 1) replaced.add(marker._id)
    }
    return takenIds.filter((id) => !replaced.has(id))
  }

  return {
    // Inserts all docs (unordered). Returns the ids that already existed;
    // any other failure throws.
    async insertMany (docs) {
      const taken = await insertManyReportingDuplicates(col, docs)
      return taken.length ? replaceMarkers(docs, taken) : taken
    },

    async findBodiesByIds (ids) {
      const rows = await col.find({ _id: { $in: ids } }, { projection: { body: 1 }, maxTimeMS: queryTimeoutMs }).toArray()
      return new Map(rows.map((r) => [r._id, r.body]))
    },

    async deleteByIds (ids) {
      if (ids.length) await col.deleteMany({ _id: { $in: ids } })
    },

    // Data 2.3.2: voiding never applies to a voiding statement.
    markVoided: (ids) => setFlagsOrMark(ids, { voided: true }, { voiding: { $ne: true } }),

    markReferenced: (ids) => setFlagsOrMark(ids, { referenced: true }),

    async findOne (id, { voided, authorityKey }) {
      const filter = { _id: id, voided }
      if (authorityKey) filter.authorityKey = authorityKey
      const row = await col.findOne(filter, { projection: { body: 1, stored: 1 }, maxTimeMS: queryTimeoutMs })
      return row && row.body !== undefined ? row : null
    },

    async findReferencedIds (filter, { limit }) {
      const rows = await col.find({ ...filter, referenced: true }, { projection: { _id: 1 }, limit, maxTimeMS: queryTimeoutMs }).toArray()
      return rows.map((r) => r._id)
    },

    async findIdsReferencing (ids, { limit }) {
      const rows = await col.find({ ref: { $in: ids } }, { projection: { _id: 1 }, limit, maxTimeMS: queryTimeoutMs }).toArray()
      return rows.map((r) => r._id)
    },

    async query (filter, { ascending, limit }) {
      const dir = ascending ? 1 : -1
      return col.find(filter, { projection: { body: 1, stored: 1 }, sort: { stored: dir, _id: dir }, limit, maxTimeMS: queryTimeoutMs }).toArray()
    },

    async latestStored () {
      const row = await col.findOne({}, { projection: { stored: 1 }, sort: { stored: -1 }, maxTimeMS: queryTimeoutMs })
      return row ? row.stored : null
    }
  }
}

module.exports = { statementsRepository }
