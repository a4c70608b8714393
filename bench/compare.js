'use strict'

// `npm run bench -- --compare old/results.json`: every figure of the run
// against the same figure of an earlier run, matched by scenario name and
// figure key, with the change in %. `--compare A.json B.json` compares two
// files without running anything. A figure over repetitions is compared by
// its median; figures that are not numbers (words) are left out.

const fs = require('node:fs')
const { figureEntries, formatValue, isSpread } = require('./labels')
const { busyReasons } = require('./machine-load')

function readResults (file) {
  let results
  try {
    results = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (err) {
    throw new Error(`--compare: cannot read ${file}: ${err.message}`)
  }
  if (!results || !Array.isArray(results.sections)) throw new Error(`--compare: ${file} is not a bench results.json (no sections)`)
  return results
}

const numeric = (v) => (typeof v === 'number' ? v : isSpread(v) ? v.median : null)

// Figures that are numbers, or null (not reached, not measured); words are
// left out.
function figuresOf (section) {
  const labels = section.labels || {}
  return new Map(figureEntries(section.figures, labels.figures).filter((e) => e.value === null || numeric(e.value) !== null).map((e) => [e.key, e]))
}

// Change from `before` to `after` in %, one decimal; null where there is no
// base to compare with.
function changePercent (before, after) {
  if (before === null || after === null) return null
  if (before === 0) return after === 0 ? 0 : null
  return Math.round(((after - before) / Math.abs(before)) * 1000) / 10
}

function describe (results, file) {
  return { file, date: results.date, commit: results.machine && results.machine.commit, command: results.command, loadRecorded: Boolean(results.machineLoad), busy: busyReasons(results) }
}

const measured = (results) => new Map(results.sections.filter((s) => s.figures && !s.skipped && !s.failed).map((s) => [s.name, s]))

// { before, after, rows: [{ scenario, key, label, before, after, changePercent, reads }], onlyBefore, onlyAfter }:
// a row per figure of each scenario both runs measured (a figure only one
// of them has is marked new or gone); the scenarios only one run measured
// are named apart.
function compareResults (before, after, { beforeFile = null, afterFile = null } = {}) {
  const rows = []
  const oldSections = measured(before)
  const newSections = measured(after)
  for (const [name, section] of newSections) {
    if (!oldSections.has(name)) continue
    const was = figuresOf(oldSections.get(name))
    const now = figuresOf(section)
    for (const key of new Set([...now.keys(), ...was.keys()])) {
      const entry = now.get(key) || was.get(key)
      const a = was.has(key) ? numeric(was.get(key).value) : null
      const b = now.has(key) ? numeric(now.get(key).value) : null
      const change = changePercent(a, b)
      const better = entry.decl.better
      const reads = change === null || change === 0 || !better ? null : (change > 0) === (better === 'higher') ? 'better' : 'worse'
      rows.push({ scenario: name, key, label: entry.label, decl: entry.decl, before: a, after: b, inBefore: was.has(key), inAfter: now.has(key), changePercent: change, reads })
    }
  }
  return {
    before: describe(before, beforeFile),
    after: describe(after, afterFile),
    rows,
    onlyBefore: [...oldSections.keys()].filter((n) => !newSections.has(n)),
    onlyAfter: [...newSections.keys()].filter((n) => !oldSections.has(n))
  }
}

const signed = (x) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toLocaleString('en', { maximumFractionDigits: 1 })} %`

// The comparison as markdown: who is compared, a warning where either run
// was on a busy machine, and one table row per figure.
function comparisonMarkdown (comparison) {
  const { before, after, rows } = comparison
  const run = (r) => `${r.file ? `\`${r.file}\`, ` : ''}${r.date}${r.commit ? `, commit ${r.commit}` : ''}`
  const out = [`Before: ${run(before)}. After: ${run(after)}. Change = (after − before) / before; "better" or "worse" where the figure says which way is good.`, '']
  for (const [which, r] of [['before', before], ['after', after]]) {
    if (r.busy.length) out.push(`> **Warning: the ${which} run's machine was busy: its figures may read low** (${r.busy.join('; ')}).`, '')
    else if (!r.loadRecorded) out.push(`The ${which} run did not record the machine's load: whether it was busy is not known.`, '')
  }
  const apart = [['before', comparison.onlyBefore], ['after', comparison.onlyAfter]].filter(([, names]) => names && names.length)
  for (const [which, names] of apart) out.push(`Measured only in the ${which} run, not compared: ${names.join(', ')}.`, '')
  if (!rows.length) return [...out, 'No figure in common.'].join('\n')
  out.push('| Scenario | Figure | Before | After | Change |', '|---|---|---|---|---|')
  for (const r of rows) {
    const change = r.changePercent !== null ? `${signed(r.changePercent)}${r.reads ? ` (${r.reads})` : ''}` : !r.inBefore ? 'new' : !r.inAfter ? 'gone' : '–'
    const value = (v, present) => (present ? formatValue(v, r.decl) : '–')
    out.push(`| ${r.scenario} | ${r.label} | ${value(r.before, r.inBefore)} | ${value(r.after, r.inAfter)} | ${change} |`)
  }
  return out.join('\n')
}

function compareFiles (beforeFile, afterFile) {
  return compareResults(readResults(beforeFile), readResults(afterFile), { beforeFile, afterFile })
}

module.exports = { readResults, compareResults, compareFiles, comparisonMarkdown, changePercent }
