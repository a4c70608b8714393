'use strict'

// The bench report people read (bench/bench-report.js, labels.js,
// compare.js, machine-load.js, plots.js): rendered from small fixed results
// objects, with no load run and no storage engine.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { renderReport } = require('../../bench/bench-report')
const { compareFiles, comparisonMarkdown } = require('../../bench/compare')
const { cpuShares, BUSY_WARNING } = require('../../bench/machine-load')
const { fitAxes } = require('../../bench/plots')

const machine = { cpus: 2, cpuModel: 'Test CPU', memoryGiB: 4, os: 'Linux', node: 'v20.0.0', lrs: '0.1.0', commit: 'abc1234' }
const quiet = { start: { cores: 2, load1: 0.2, load5: 0.2, load15: 0.1, stealPercent: 0, busyPercent: 5 }, end: { cores: 2, load1: 1.8, stealPercent: 0.5, busyPercent: 90 } }

// A declared scenario, one as an older results.json has it (no labels,
// nested and camelCase figures), one over repetitions, and a skipped one.
function results ({ machineLoad = quiet, rate = 1000, p99 = 200, learners = 640 } = {}) {
  return {
    date: '2026-11-25T10:00:00.000Z',
    profile: 'quick',
    target: { engine: 'sqlite' },
    machine,
    machineLoad,
    command: 'npm run bench',
    sections: [{
      name: 'overload',
      title: 'Overload ramp',
      question: 'Does it hold?',
      settings: { connections: [5, 200], seconds: 5 },
      labels: {
        figures: { peakAcceptedStatementsPerSec: { label: 'Peak accepted throughput', unit: 'statements/s', better: 'higher' }, highestP99Ms: { label: 'Highest P99', unit: 'ms', better: 'lower' } },
        columns: { acceptedStatementsPerSec: { label: 'Accepted statements/s', unit: 'statements/s' }, share429: { label: '429 share of responses', percent: true }, p99Ms: { label: 'P99', unit: 'ms' } }
      },
      figures: { peakAcceptedStatementsPerSec: rate, highestP99Ms: p99 },
      table: [{ connections: 5, acceptedStatementsPerSec: rate, share429: 0, p99Ms: p99, workersRssMiB: 580, fiveXX: 0 }, { connections: 200, acceptedStatementsPerSec: 800, share429: 0.931, p99Ms: 900, workersRssMiB: 700, fiveXX: 0 }],
      plots: []
    }, {
      name: 'sessions',
      title: 'Learner sessions',
      question: 'How many learners?',
      settings: { maxLearners: 800 },
      figures: { learnersWhenP99: { 'past 1 s': learners, 'past 5 s': null }, completionChecksWrong: 0 },
      table: [{ virtualLearners: 80, learners: 3200, requestsPerSec: 300, p50Ms: 5, p99Ms: 100, completionCheckP99Ms: 40, refused429: 0, non2xx: 0 }],
      plots: []
    }, {
      name: 'engines',
      title: 'Storage engines',
      question: 'As the store grows?',
      settings: { engines: ['sqlite'], maxSize: { ferretdb: 25000 }, repetitions: 3 },
      figures: { sqlite: { engine: 'sqlite', insertStatementsPerSec: { median: 10256, min: 10192, max: 10447 }, agentQueryP50Ms: { median: 0.5, min: 0.4, max: 0.6 } } },
      table: [{ repetition: 1, engine: 'sqlite', insertStatementsPerSec: 10256, bytesPerStatement: 2516 }],
      plots: [{ title: 'Insert rate as the store grows', file: 'plots/engines-growth.svg' }]
    }, {
      name: 'cores', title: 'Cores sweep', question: 'Workers?', skipped: 'needs the store itself; run without --url'
    }]
  }
}

// The lines under each "Figures:", and the header row of each table.
function figureLines (md) {
  const lines = md.split('\n')
  const out = []
  lines.forEach((l, i) => {
    if (l !== 'Figures:') return
    for (let j = i + 2; j < lines.length && lines[j].startsWith('- '); j++) out.push(lines[j])
  })
  return out
}
const headerRows = (md) => md.split('\n').filter((l, i, all) => l.startsWith('| ') && (all[i + 1] || '').startsWith('|---'))

test('figures read as words with their units, never as JSON', () => {
  const md = renderReport(results())
  const lines = figureLines(md)
  assert.ok(lines.length >= 7, md)
  for (const line of lines) {
    assert.doesNotMatch(line, /[{}[\]]|\[object/, line)
    assert.doesNotMatch(line, /\b[a-z]+[A-Z]\w*/, `camelCase in ${line}`)
  }
  assert.ok(lines.includes('- Peak accepted throughput: 1,000 statements/s'), lines.join('\n'))
  assert.ok(lines.includes('- Highest P99: 200 ms'))
  // an older results.json, without labels: put into words all the same
  assert.ok(lines.includes('- Learners when P99: past 1 s: 640'), lines.join('\n'))
  assert.ok(lines.some((l) => /^- Sqlite: insert statements\/s: 10,256 statements\/s \(median of 3 runs, from 10,192 to 10,447\)$/.test(l)), lines.join('\n'))
  assert.match(md, /Settings: connections 5, 200; seconds 5\./)
})

test('table headers are words with units, generated from the declarations', () => {
  const headers = headerRows(renderReport(results()))
  assert.equal(headers.length, 3)
  for (const h of headers) assert.doesNotMatch(h, /\b[a-z]+[A-Z]\w*/, `camelCase in ${h}`)
  assert.equal(headers[0], '| Connections | Accepted statements/s | 429 share of responses (%) | P99 (ms) | Workers RSS (MiB) | 5xx responses |')
  assert.match(headers[1], /\| Requests\/s \| P50 \(ms\) \| P99 \(ms\) \| Completion check P99 \(ms\) \| 429 responses \| Non-2xx \|/)
  // a fraction declared as a percentage reads as one
  assert.match(renderReport(results()), /\| 200 \| 800 \| 93\.1 \| 900 \| 700 \| 0 \|/)
})

test('a busy machine is reported in the header with a warning; a quiet one is not', () => {
  assert.doesNotMatch(renderReport(results()), /Warning/)
  assert.match(renderReport(results()), /Machine load \(2 cores\): at the start 1-minute load 0\.2, CPU steal 0 %/)
  const loaded = renderReport(results({ machineLoad: { ...quiet, start: { ...quiet.start, load1: 3.4 } } }))
  assert.match(loaded, new RegExp(`Warning: ${BUSY_WARNING}\\.\\*\\* At the start the 1-minute load was 3\\.4 on 2 cores`))
  const stolen = renderReport(results({ machineLoad: { ...quiet, end: { ...quiet.end, stealPercent: 12.5 } } }))
  assert.match(stolen, /Warning: the machine was busy.*12\.5 % of CPU time was stolen/)
})

test('CPU steal is the steal share of the CPU time between two readings', () => {
  assert.deepEqual(cpuShares({ total: 1000, idle: 500, steal: 10 }, { total: 1200, idle: 600, steal: 30 }), { stealPercent: 10, busyPercent: 50 })
  assert.deepEqual(cpuShares(null, { total: 1, idle: 1, steal: 0 }), { stealPercent: null, busyPercent: null })
})

test('--compare A.json B.json: the change per figure in %, matched by scenario and figure key', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-compare-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  const a = path.join(dir, 'a.json')
  const b = path.join(dir, 'b.json')
  fs.writeFileSync(a, JSON.stringify(results({ rate: 1000, p99: 200, learners: 640 })))
  fs.writeFileSync(b, JSON.stringify(results({ rate: 1250, p99: 150, learners: 480, machineLoad: { ...quiet, start: { ...quiet.start, load1: 3 } } })))
  const comparison = compareFiles(a, b)
  const row = (scenario, key) => comparison.rows.find((r) => r.scenario === scenario && r.key === key)
  assert.equal(row('overload', 'peakAcceptedStatementsPerSec').changePercent, 25)
  assert.equal(row('overload', 'peakAcceptedStatementsPerSec').reads, 'better')
  assert.equal(row('overload', 'highestP99Ms').changePercent, -25)
  assert.equal(row('overload', 'highestP99Ms').reads, 'better')
  assert.equal(row('sessions', 'learnersWhenP99.past 1 s').changePercent, -25)
  assert.equal(row('engines', 'sqlite.insertStatementsPerSec').changePercent, 0)
  const md = comparisonMarkdown(comparison)
  assert.match(md, /\| overload \| Peak accepted throughput \| 1,000 statements\/s \| 1,250 statements\/s \| \+25 % \(better\) \|/)
  assert.match(md, /\| overload \| Highest P99 \| 200 ms \| 150 ms \| −25 % \(better\) \|/)
  assert.match(md, /\| sessions \| Learners when P99: past 1 s \| 640 \| 480 \| −25 % \|/)
  assert.match(md, /Warning: the after run's machine was busy/)
  assert.doesNotMatch(md, /Warning: the before run/)
})

test('plot axes are fitted to the data, not to a round number far beyond it', () => {
  const spec = {
    vconcat: [{
      data: { values: [5, 10, 25, 50, 100, 200].map((c) => ({ connections: c, value: c * 10 })) },
      mark: { type: 'line', point: true },
      encoding: { x: { field: 'connections', type: 'quantitative', scale: { type: 'log' } }, y: { field: 'value', type: 'quantitative', title: 'P99 (ms)' } }
    }]
  }
  const fitted = fitAxes(spec).vconcat[0].encoding
  const [x0, x1] = fitted.x.scale.domain
  assert.ok(x0 < 5 && x0 > 4 && x1 > 200 && x1 < 250, `x ${x0}..${x1}`)
  const [y0, y1] = fitted.y.scale.domain
  assert.ok(y0 >= 0 && y0 < 50 && y1 > 2000 && y1 < 2200, `y ${y0}..${y1}`)
  assert.equal(spec.vconcat[0].encoding.x.scale.domain, undefined, 'the spec given is left as it was')
  // bars start at zero: left alone
  const bars = fitAxes({ data: { values: [{ way: 'a', rate: 900 }] }, mark: 'bar', encoding: { x: { field: 'way', type: 'nominal' }, y: { field: 'rate', type: 'quantitative' } } })
  assert.equal(bars.encoding.y.scale, undefined)
})

test('percentiles are nearest rank: of 100 timings P99 is the 99th, not the largest', () => {
  const { percentile } = require('../../bench/report')
  const timings = Array.from({ length: 100 }, (_, i) => 100 - i) // 100 .. 1, unsorted order
  assert.equal(percentile(timings, 99), 99)
  assert.equal(percentile(timings, 50), 50)
  assert.equal(percentile(timings, 100), 100)
  assert.equal(percentile([7], 99), 7)
  assert.equal(percentile([], 99), null)
})
