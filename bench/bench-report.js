'use strict'

// report.md of a `npm run bench` run: what ran where, every figure, the
// plots, and how to run it again.

const fs = require('node:fs')

function markdownTable (rows) {
  if (!rows || !rows.length) return ''
  const columns = Object.keys(rows[0])
  const cell = (v) => (v === null || v === undefined ? '–' : typeof v === 'number' ? v.toLocaleString('en') : String(v))
  return [
    `| ${columns.join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${columns.map((c) => cell(r[c])).join(' | ')} |`)
  ].join('\n')
}

function writeReport (file, results) {
  const m = results.machine
  const out = [
    `# LRS benchmark, ${results.profile} profile, ${results.date}`,
    '',
    `- Machine: ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ${m.os}; the LRS, its store and the load generator share it${results.target.url ? ' (except a remote target)' : ''}.`,
    `- Versions: LRS ${m.lrs}${m.commit ? ` (commit ${m.commit})` : ''}, Node.js ${m.node}.`,
    `- Target: ${results.target.url ? results.target.url : `the LRS started the README way (PM2 cluster, one worker per core) on a fresh ${results.target.engine} store, 127.0.0.1`}.`,
    `- Reproduce: \`${results.command}\``,
    ''
  ]
  for (const s of results.sections) {
    out.push(`## ${s.title}`, '', s.question, '')
    if (s.skipped) { out.push(`Skipped: ${s.skipped}.`, ''); continue }
    if (s.failed) { out.push(`**Failed:** ${s.failed}.`, ''); continue }
    out.push(`Settings: \`${JSON.stringify(s.settings)}\``, '')
    if (s.checks) out.push('Checks:', '', ...s.checks.map((c) => `- ${c.criterion}: **${c.verdict}** (${c.detail})`), '')
    if (s.figures) out.push('Figures:', '', ...Object.entries(s.figures).map(([k, v]) => `- ${k}: ${typeof v === 'object' && v !== null ? JSON.stringify(v) : v}`), '')
    for (const p of s.plots) out.push(`![${p.title}](${p.file})`, '')
    out.push(markdownTable(s.table), '')
  }
  fs.writeFileSync(file, out.join('\n'))
}

module.exports = { writeReport }
