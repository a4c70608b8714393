'use strict'

// A report of dimensions and measures: one group per combination of its
// dimensions' values (a statement under two context activities counts in
// both), each with its measures (measures.js). Rows come sorted: along the
// time bucket when there is one, else by the first measure, largest first;
// then by the groups' values, so both engines give the same rows in the
// same order.

const { DIMENSION_VALUES } = require('./statement-values')
const { groupMeasures } = require('./measures')
const { BUCKETS } = require('./time-buckets')

function groupReport (report) {
  const dims = report.groupBy
  const groups = new Map() // key -> { values, measures }
  const combos = (s) => {
    let out = [[]]
    for (const d of dims) {
      const values = DIMENSION_VALUES[d](s, report)
      out = out.flatMap((prefix) => values.map((v) => [...prefix, v]))
    }
    return out
  }
  return {
    columns: [...dims, ...report.measures],
    size: () => groups.size,
    has: (s) => combos(s).every((values) => groups.has(JSON.stringify(values))),
    add (s) {
      for (const values of combos(s)) {
        const key = JSON.stringify(values)
        let g = groups.get(key)
        if (!g) groups.set(key, (g = { values, measures: groupMeasures(report.measures, report) }))
        g.measures.add(s)
      }
    },
    rows: () => orderedRows([...groups.values()].map((g) => ({ values: g.values, measured: g.measures.values() })), report)
  }
}

// The answer's rows from groups ({ values, measured }), in its order:
// along the time bucket when there is one, else by the first measure,
// largest first; then by the groups' values (rollup-report.js answers in
// the same order).
function orderedRows (list, report) {
  const timeAt = report.groupBy.findIndex((d) => BUCKETS.includes(d))
  const compareValues = (a, b) => {
    for (let i = 0; i < a.length; i++) {
      const x = a[i] === null ? '' : String(a[i])
      const y = b[i] === null ? '' : String(b[i])
      if (x !== y) return x < y ? -1 : 1
    }
    return 0
  }
  list.sort((a, b) => {
    if (timeAt >= 0 && a.values[timeAt] !== b.values[timeAt]) return a.values[timeAt] < b.values[timeAt] ? -1 : 1
    if (timeAt < 0) {
      const x = a.measured[0]
      const y = b.measured[0]
      if (typeof x === 'number' && typeof y === 'number' && x !== y) return y - x
    }
    return compareValues(a.values, b.values)
  })
  return list.map((g) => [...g.values, ...g.measured])
}

module.exports = { groupReport, orderedRows }
