'use strict'

// report.md of a `npm run bench` run: what ran where and how busy the
// machine was, every figure in words with its unit, the plots, tables with
// headers in words, a comparison with an earlier run (--compare), and how
// to run it again. Everything is read from results.json's object, so an
// old run's report can be written again from its file.

const fs = require('node:fs')
const { declared, header, cell, figureEntries, formatValue, settingsInWords } = require('./labels')
const { busyReasons, BUSY_WARNING } = require('./machine-load')
const { comparisonMarkdown } = require('./compare')

function markdownTable (rows, declarations) {
  if (!rows || !rows.length) return ''
  // every key of every row, in the order first met (rows may differ)
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))]
  const decls = columns.map((c) => declared(declarations, c))
  return [
    `| ${decls.map(header).join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${columns.map((c, i) => cell(r[c], decls[i])).join(' | ')} |`)
  ].join('\n')
}

const number = (x) => (x === null || x === undefined ? '–' : String(x))
const minutes = (s) => (s === null || s === undefined ? '–' : s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`)

function loadLine (machineLoad) {
  if (!machineLoad) return null
  const { start, end } = machineLoad
  const at = (s, note = '') => (s
    ? `1-minute load ${number(s.load1)}${note}, CPU steal ${number(s.stealPercent)} %, CPU busy ${number(s.busyPercent)} %`
    : 'not measured')
  return `- Machine load (${start ? start.cores : '?'} cores): at the start ${at(start)}; at the end ${at(end, ' (counts the benchmark itself)')}.`
}

function warningLines (results) {
  const reasons = busyReasons(results)
  return reasons.length ? [`> **Warning: ${BUSY_WARNING}.** ${reasons.map((r) => r.charAt(0).toUpperCase() + r.slice(1)).join('. ')}.`, ''] : []
}

function sectionLoad (l) {
  if (!l) return null
  return `Machine during this scenario: 1-minute load ${number(l.load1AtStart)} at its start, ${number(l.load1AtEnd)} at its end; CPU steal ${number(l.stealPercent)} %, CPU busy ${number(l.busyPercent)} %.`
}

function renderReport (results) {
  const m = results.machine
  const out = [
    `# LRS benchmark, ${results.profile} profile, ${results.date}`,
    '',
    ...warningLines(results),
    `- Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.os}; the LRS, its store and the load generator share it${results.target.url ? ' (except a remote target)' : ''}.`,
    loadLine(results.machineLoad),
    `- Versions: LRS ${m.lrs}${m.commit ? ` (commit ${m.commit})` : ''}, Node.js ${m.node}.`,
    `- Statements: ${results.statements ? results.statements.text : 'small: 5,000 learners, one registration per learner and course, 12,000 activities (before statement profiles)'} (bench/statement-generator.js; \`--profile\` chooses).`,
    `- Target: ${results.target.url ? results.target.url : `the LRS started the README way (PM2 cluster, one worker per core) on a fresh ${results.target.engine} store, 127.0.0.1`}.`,
    `- Reproduce: \`${results.command}\``,
    results.seconds === undefined ? null : `- Took ${minutes(results.seconds)}; estimated at its start: ${minutes(results.estimatedSeconds)} (bench/plan.js).`,
    ''
  ].filter((line) => line !== null)
  for (const s of results.sections) {
    out.push(`## ${s.title}`, '', s.question, '')
    if (s.skipped) { out.push(`Skipped: ${s.skipped}.`, ''); continue }
    if (s.failed) { out.push(`**Failed:** ${s.failed}.`, ''); continue }
    const labels = s.labels || {}
    out.push(`Settings: ${settingsInWords(s.settings)}.`, '')
    const load = sectionLoad(s.machineLoad)
    if (load) out.push(load, '')
    if (s.seconds !== undefined) out.push(`Took ${minutes(s.seconds)} (estimated ${minutes(s.estimatedSeconds)}).`, '')
    if (s.checks) out.push('Checks:', '', ...s.checks.map((c) => `- ${c.criterion}: **${c.verdict}** (${c.detail})`), '')
    const figures = figureEntries(s.figures, labels.figures)
    const runs = s.settings && s.settings.repetitions
    if (figures.length) out.push('Figures:', '', ...figures.map((f) => `- ${f.label}: ${formatValue(f.value, f.decl, { runs })}`), '')
    for (const p of s.plots || []) out.push(`![${p.title}](${p.file})`, '')
    const table = markdownTable(s.table, labels.columns)
    if (table) out.push(table, '')
  }
  if (results.comparison) out.push('## Compared with an earlier run', '', comparisonMarkdown(results.comparison), '')
  return out.join('\n')
}

function writeReport (file, results) {
  fs.writeFileSync(file, renderReport(results))
}

module.exports = { writeReport, renderReport, markdownTable }
