'use strict'

// The measures of one group, kept as statements come (add) and read once
// at the end (values). Distinct counts are exact (a Set of learners'
// keys); percentiles are exact too (nearest rank over every value kept),
// which bounds a report by what a group holds, not by an estimate's error.

const { agentKey } = require('../resources/agents/agent-keys')
const { scoreOf, durationOf, timeOf } = require('./statement-values')

function percentile (sorted, p) {
  if (!sorted.length) return null
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p / 100 * sorted.length) - 1))]
}

// stat of a sorted list of numbers
function stat (name, sorted, sum) {
  if (name === 'count') return sorted.length
  if (!sorted.length) return null
  if (name === 'sum') return round(sum)
  if (name === 'mean') return round(sum / sorted.length)
  if (name === 'min') return sorted[0]
  if (name === 'max') return sorted[sorted.length - 1]
  return percentile(sorted, Number(name.slice(1)))
}
// sums of floats differ in their last digits with the order they were
// added in (engines give rows in their own order): rounded to 1e-9
const round = (x) => Math.round(x * 1e9) / 1e9

// A group's accumulator for `measures` (report-definition.js MEASURES).
function groupMeasures (measures, report) {
  const wants = (prefix) => measures.some((m) => m === prefix || m.startsWith(prefix + '.'))
  const learners = measures.includes('learners') ? new Set() : null
  const registrations = measures.includes('registrations') ? new Set() : null
  const scores = wants('score') ? [] : null
  const durations = wants('duration') ? [] : null
  let statements = 0
  let first = null
  let last = null
  return {
    add (s) {
      statements++
      if (learners) learners.add(agentKey(s.actor))
      if (registrations && s.context && s.context.registration) registrations.add(s.context.registration.toLowerCase())
      if (scores) { const v = scoreOf(s, report.score); if (v !== null) scores.push(v) }
      if (durations) { const v = durationOf(s); if (v !== null) durations.push(v) }
      if (measures.includes('firstTimestamp') || measures.includes('lastTimestamp')) {
        const t = timeOf(s, 'timestamp')
        if (first === null || t < first) first = t
        if (last === null || t > last) last = t
      }
    },
    statements: () => statements,
    values () {
      const sortedOf = (list) => list && [...list].sort((a, b) => a - b)
      const sorted = { score: sortedOf(scores), duration: sortedOf(durations) }
      const sums = { score: scores && scores.reduce((a, b) => a + b, 0), duration: durations && durations.reduce((a, b) => a + b, 0) }
      return measures.map((m) => {
        if (m === 'statements') return statements
        if (m === 'learners') return learners.size
        if (m === 'registrations') return registrations.size
        if (m === 'firstTimestamp') return first === null ? null : new Date(first).toISOString()
        if (m === 'lastTimestamp') return last === null ? null : new Date(last).toISOString()
        const [of, name] = m.split('.')
        return stat(name, sorted[of], sums[of])
      })
    }
  }
}

module.exports = { groupMeasures, percentile }
