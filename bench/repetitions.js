'use strict'

// A scenario run several times (`npm run bench -- --full` does three): one
// section with every numeric figure as its median and spread over the
// runs, every run's rows in the table, and the plots of the first run.

// The middle run's value (the upper one of an even count), not rounded: a
// ratio of 0.77 stays 0.77.
function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

function combineFigures (all) {
  const first = all[0]
  if (typeof first === 'number' && all.every((v) => typeof v === 'number')) {
    return { median: median(all), min: Math.min(...all), max: Math.max(...all) }
  }
  if (first && typeof first === 'object' && !Array.isArray(first)) {
    return Object.fromEntries(Object.keys(first).map((k) => [k, combineFigures(all.map((v) => (v ? v[k] : undefined)))]))
  }
  return first
}

function combineRuns (runs) {
  if (runs.length === 1) return runs[0]
  const [first] = runs
  return {
    settings: { ...first.settings, repetitions: runs.length },
    figures: combineFigures(runs.map((r) => r.figures)),
    table: runs.flatMap((r, k) => (r.table || []).map((row) => ({ repetition: k + 1, ...row }))),
    plots: (first.plots || []).map((p) => ({ ...p, title: `${p.title} (repetition 1 of ${runs.length})` }))
  }
}

module.exports = { combineRuns }
