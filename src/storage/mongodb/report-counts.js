'use strict'

// What reports count per hour (src/reports/rollup-report.js), from MongoDB's
// aggregation framework: statements per verb, and the distinct learners,
// of a store over a range of whole hours of their
// timestamps, and a course's completion funnel. Each statement carries the
// hour of its timestamp (`rh`), its learner's key (`rl`, agent-keys.js),
// its groupings (`rg`) and its funnel steps (`fL`, `fC`, `fP`: 1 or
// absent; report-fields.js) for this (statements.js, toDoc);
// those stored before they did get them once (backfillReportFields), and
// until then reports read the statements. A pipeline is $match and $group
// with $sum: 1 only (what FerretDB 1.24 does right), built from the validated report:
// nothing a client wrote but values compared for equality.

const { useMboxCase } = require('../../resources/agents/agent-keys')
const { reportFields } = require('../../resources/statements/report-fields')
const { qualify, qualifyAll, unqualify, storeOf } = require('../../stores/store-keys')
const { storeFilter } = require('./statement-filter')
const { insertManyReportingDuplicates } = require('./insert-many')
const { MBOX_CASE } = require('./settings')

const HOUR_MS = 3600000
const COMPLETE = 'report_fields_complete' // the setting that says every statement has them
const SLICE = 500
const WRITES_AT_ONCE = 99 // FerretDB 1.24 never answers some bulkWrites of 100 or more

// The fields of a statement for reports (a record's report fields,
// report-fields.js): the hour of its timestamp (of `stored` when the LRS
// set the timestamp to it), its learner's key, its groupings (its store's:
// store-keys.js), its funnel steps.
function documentReportFields ({ timestampMs, timestampFromStored, learner, groupings, launched, completes, passes }, stored, store) {
  return {
    rh: Math.floor((timestampFromStored || timestampMs == null ? stored.getTime() : timestampMs) / HOUR_MS),
    rl: learner,
    rg: groupings && groupings.length ? qualifyAll(store, groupings) : undefined,
    fL: launched ? 1 : undefined,
    fC: completes ? 1 : undefined,
    fP: passes ? 1 : undefined
  }
}

// Gives the statements stored without them their fields, then records that
// all have them. Every worker may run it at once: the updates are the same.
async function backfillReportFields (db, { logger }) {
  const settings = db.collection('settings')
  if (await settings.findOne({ _id: COMPLETE })) return
  const mbox = await settings.findOne({ _id: MBOX_CASE }) // the keys this database's learners have
  if (mbox) useMboxCase(mbox.value)
  const col = db.collection('statements')
  let done = 0
  for (;;) {
    const docs = await col.find({ rh: { $exists: false }, body: { $exists: true } }, { projection: { body: 1, stored: 1, ts: 1 }, limit: SLICE }).toArray()
    if (!docs.length) break
    const writes = docs.map((d) => {
      const fields = documentReportFields({ ...reportFields(JSON.parse(d.body)), timestampFromStored: d.ts === true }, d.stored, storeOf(d._id))
      for (const k of Object.keys(fields)) if (fields[k] === undefined) delete fields[k]
      return { updateOne: { filter: { _id: d._id }, update: { $set: fields } } }
    })
    for (let i = 0; i < writes.length; i += WRITES_AT_ONCE) await col.bulkWrite(writes.slice(i, i + WRITES_AT_ONCE), { ordered: false })
    done += docs.length
  }
  await insertManyReportingDuplicates(settings, [{ _id: COMPLETE, value: new Date() }])
  if (done) logger.info({ statements: done }, 'report fields given to the statements stored before them')
}

function reportCountsRepository (db, { queryTimeoutMs }) {
  const col = db.collection('statements')
  const settings = db.collection('settings')
  const options = { maxTimeMS: queryTimeoutMs }
  let complete = false
  const match = (store, fromHour, toHour) => ({ voided: false, ...storeFilter(store), rh: { $gte: fromHour, $lt: toHour } })
  const edge = async (store, order) => {
    const [doc] = await col.find({ voided: false, ...storeFilter(store), rh: { $exists: true } }, { projection: { rh: 1 }, sort: { rh: order }, limit: 1, ...options }).toArray()
    return doc ? doc.rh : null
  }
  return {
    source: 'aggregation',
    async available () {
      if (!complete) complete = (await settings.findOne({ _id: COMPLETE }, options)) !== null
      return complete
    },
    async span ({ store }) {
      const firstHour = await edge(store, 1)
      return firstHour === null ? null : { firstHour, lastHour: await edge(store, -1) }
    },
    async statements ({ store, fromHour, toHour, verb = null, by = [] }) {
      const filter = match(store, fromHour, toHour)
      if (verb) filter.verb = qualify(store, verb)
      const perVerb = by.includes('verb')
      const rows = await col.aggregate([{ $match: filter }, { $group: { _id: perVerb ? '$verb' : null, n: { $sum: 1 } } }], options).toArray()
      return rows.map((r) => perVerb ? { verb: unqualify(r._id), n: r.n } : { n: r.n })
    },
    // One $group per step, each counting its statements ($sum: 1): FerretDB
    // 1.24 sums a field ($sum: '$fL') as 0 when the group key is a document
    async funnel ({ store, grouping, fromHour, toHour }) {
      const filter = { ...match(store, fromHour, toHour), rg: qualify(store, grouping) }
      const counted = (step) => col.aggregate([{ $match: step ? { ...filter, [step]: 1 } : filter }, { $group: { _id: { o: '$activities', l: '$rl' }, n: { $sum: 1 } } }], options).toArray()
      const [all, launched, completed, passed] = await Promise.all([null, 'fL', 'fC', 'fP'].map(counted))
      const keyOf = (r) => JSON.stringify([r._id.o, r._id.l])
      const rows = new Map(all.map((r) => [keyOf(r), {
        activity: Array.isArray(r._id.o) && r._id.o.length ? unqualify(r._id.o[0]) : null,
        learner: r._id.l === undefined ? null : r._id.l,
        n: r.n,
        launched: 0,
        completed: 0,
        passed: 0
      }]))
      for (const [step, list] of Object.entries({ launched, completed, passed })) {
        for (const r of list) {
          const row = rows.get(keyOf(r))
          if (row) row[step] = r.n
        }
      }
      return [...rows.values()]
    },
    async learners ({ store, fromHour, toHour }) {
      const rows = await col.aggregate([{ $match: match(store, fromHour, toHour) }, { $group: { _id: '$rl' } }], options).toArray()
      return rows.map((r) => r._id === undefined ? null : r._id)
    },
    // where statements of some hours were stored: not kept here (a report
    // on a timestamp range reads its query's statements)
    async storedRanges () { return null }
  }
}

module.exports = { documentReportFields, backfillReportFields, reportCountsRepository }
