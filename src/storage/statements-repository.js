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

const { insertManyReportingDuplicates } = require('./insert-many')

function statementsRepository (db, { queryTimeoutMs }) {
  const col = db.collection('statements')

  return {
    // Inserts all docs (unordered). Returns the ids that already existed;
    // any other failure throws.
    insertMany: (docs) => insertManyReportingDuplicates(col, docs),

    async findBodiesByIds (ids) {
      const rows = await col.find({ _id: { $in: ids } }, { projection: { body: 1 }, maxTimeMS: queryTimeoutMs }).toArray()
      return new Map(rows.map((r) => [r._id, r.body]))
    },

    async deleteByIds (ids) {
      if (ids.length) await col.deleteMany({ _id: { $in: ids } })
    },

    // Data 2.3.2: voiding never applies to a voiding statement.
    async markVoided (ids) {
      if (ids.length) await col.updateMany({ _id: { $in: ids }, voiding: { $ne: true } }, { $set: { voided: true } })
    },

    async markReferenced (ids) {
      if (ids.length) await col.updateMany({ _id: { $in: ids } }, { $set: { referenced: true } })
    },

    async findOne (id, { voided, authorityKey }) {
      const filter = { _id: id, voided }
      if (authorityKey) filter.authorityKey = authorityKey
      return col.findOne(filter, { projection: { body: 1, stored: 1 }, maxTimeMS: queryTimeoutMs })
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
