'use strict'

// What every benchmark needs to report: percentiles of its timings, and its
// result as JSON in bench/results/ (kept out of git).

const fs = require('node:fs')
const path = require('node:path')

// Nearest rank: the smallest value that p % of the values are at or below
// (of 100 timings, P99 is the 99th, P50 the 50th). Until 2026-11-26 this
// took the value one rank higher, so a P99 of 100 timings was their maximum.
function percentile (values, p) {
  if (!values.length) return null
  const sorted = [...values].sort((a, b) => a - b)
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length))
  return Math.round(sorted[Math.min(sorted.length, rank) - 1] * 10) / 10
}

// The median of the numbers among `values` (null, undefined and NaN left
// out; null when there are none); of an even count, the mean of the middle two.
function median (values) {
  const xs = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b)
  if (!xs.length) return null
  const m = Math.floor(xs.length / 2)
  return xs.length % 2 ? xs[m] : (xs[m - 1] + xs[m]) / 2
}

// Writes bench/results/<kind>-<date>.json; returns its path.
function saveResult (kind, result) {
  const dir = path.join(__dirname, 'results')
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${kind}-${result.date.replace(/[:.]/g, '-')}.json`)
  fs.writeFileSync(file, JSON.stringify(result, null, 2))
  return file
}

module.exports = { percentile, median, saveResult }
