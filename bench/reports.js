'use strict'

// Reports on a large store under ingest (issue 57's figures). A fresh
// SQLite store is filled through the engine's write path (fill-store.js)
// with the campus profile's statements, their timestamps spread evenly
// over the last BENCH_DAYS days and their scaled scores over 0..1; then
// the LRS runs the README way (PM2, lrs-process.js) and, under
// POST /statements at BENCH_RATE statements/s (a process of its own), each
// report is run BENCH_QUERIES times:
//   funnel          completion funnel of one course over the last 30 days (statements read)
//   learnersPerDay  distinct learners per day over 90 days (rollups)
//   scoreSpread     a score distribution of one activity (statements read)
//   verbPerMonth    statements per verb per month, the whole store (rollups)
// and the write P99 of the ingest alone (30 s) against the ingest while
// verbPerMonth runs again and again (30 s). Prints each report's P50/P99;
// writes bench/results/reports-*.json.
//
//   node bench/reports.js                                       (1 M statements, ~5 min)
//   BENCH_STATEMENTS=10000000 node bench/reports.js             (10 M: the size)

const { describeProfile, scormStatement } = require('./statement-generator')
const { fillStore, openStoreStorage } = require('./fill-store')
const { startLrs } = require('./lrs-process')
const { startStore } = require('./store')
const { backgroundIngest, AUTH } = require('./statement-queries')
const { percentile, median, saveResult } = require('./report')

const COUNT = Number(process.env.BENCH_STATEMENTS || 1000000)
const DAYS = Number(process.env.BENCH_DAYS || 365)
const RATE = Number(process.env.BENCH_RATE || 1000)
const QUERIES = Number(process.env.BENCH_QUERIES || 20)
const DAY = 86400000
const HOUR = 3600000
const END = Math.floor(Date.now() / HOUR) * HOUR // whole hours: the rollups answer ranges of them
const COURSE = 'http://lms.example.com/courses/course-5'

// Statement i: the generator's, at its place in the spread, with its own score.
function spreadStatement (i) {
  const s = scormStatement(i)
  const scaled = ((i * 37) % 101) / 100
  return {
    ...s,
    timestamp: new Date(END - DAYS * DAY + Math.floor((i + 0.5) * (DAYS * DAY / COUNT))).toISOString(),
    result: { ...s.result, score: { scaled, raw: Math.round(scaled * 10), min: 0, max: 10 } }
  }
}

const REPORTS = {
  funnel: { shape: 'completionFunnel', filter: { grouping: COURSE, from: new Date(END - 30 * DAY).toISOString(), to: new Date(END).toISOString() } },
  learnersPerDay: { groupBy: ['day'], measures: ['learners'], filter: { from: new Date(END - 90 * DAY).toISOString(), to: new Date(END).toISOString() }, maxGroups: 100 },
  scoreSpread: { filter: { activity: spreadStatement(3).object.id }, measures: ['score.count', 'score.mean', 'score.min', 'score.max', 'score.p50', 'score.p90', 'score.p99'] },
  verbPerMonth: { groupBy: ['verb', 'month'], measures: ['statements'] }
}

async function runReport (url, report) {
  const started = process.hrtime.bigint()
  const res = await fetch(url + '/admin/reports/run', { method: 'POST', headers: { Authorization: AUTH, 'Content-Type': 'application/json' }, body: JSON.stringify(report) })
  const answer = await res.json()
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (res.status !== 200) throw new Error(`report answered ${res.status}: ${JSON.stringify(answer)}`)
  return { ms, answer }
}

async function main () {
  const store = await startStore('sqlite')
  let lrs
  try {
    process.stdout.write(`filling ${COUNT.toLocaleString('en-US')} statements over ${DAYS} days...\n`)
    const storage = await openStoreStorage(store)
    const fillRate = await fillStore(storage, 0, COUNT, { statementOf: spreadStatement, storedAtTimestamp: true, onProgress: (i) => { if (i % 500000 === 0) process.stdout.write(`  ${i}\n`) } })
    await storage.close()
    process.stdout.write(`filled at ${Math.round(fillRate)} statements/s\n`)
    lrs = await startLrs({ store })
    const ingest = backgroundIngest(lrs.url, { rate: RATE })
    const results = {}
    for (const [name, report] of Object.entries(REPORTS)) {
      await runReport(lrs.url, report) // warm-up, not counted
      const times = []
      let last
      const runs = name === 'verbPerMonth' ? Math.max(3, Math.round(QUERIES / 4)) : QUERIES
      for (let k = 0; k < runs; k++) {
        last = await runReport(lrs.url, report)
        times.push(last.ms)
      }
      results[name] = { runs, p50: percentile(times, 50), p99: percentile(times, 99), source: last.answer.source, groups: last.answer.groups, statementsCounted: last.answer.statementsCounted, statementsRead: last.answer.statementsRead }
      process.stdout.write(`${name}: P50 ${results[name].p50.toFixed(1)} ms, P99 ${results[name].p99.toFixed(1)} ms (${last.answer.source}, ${last.answer.groups} groups, ${last.answer.statementsCounted} statements counted)\n`)
    }
    await ingest.stop()
    // write P99: ingest alone, then ingest while the whole-store report runs again and again
    const alone = backgroundIngest(lrs.url, { rate: RATE })
    await new Promise((resolve) => setTimeout(resolve, 30000))
    const baseline = await alone.stop()
    const busy = backgroundIngest(lrs.url, { rate: RATE })
    const until = Date.now() + 30000
    let reportsRun = 0
    while (Date.now() < until) { await runReport(lrs.url, REPORTS.verbPerMonth); reportsRun++ }
    const during = await busy.stop()
    const write = { baselineP99: baseline.latency.p99, duringP99: during.latency.p99, ratio: during.latency.p99 / baseline.latency.p99, reportsRun, baseline2xx: baseline['2xx'], during2xx: during['2xx'], non2xx: baseline.non2xx + during.non2xx }
    process.stdout.write(`write P99: ${write.baselineP99} ms alone, ${write.duringP99} ms while ${reportsRun} whole-store reports ran (${write.ratio.toFixed(2)}x); non-2xx ${write.non2xx}\n`)
    const file = saveResult('reports', { date: new Date().toISOString(), statements: COUNT, days: DAYS, rate: RATE, profile: describeProfile().text, fillRate, reports: results, write, medianOfReports: median(Object.values(results).map((r) => r.p50)) })
    process.stdout.write(`wrote ${file}\n`)
  } finally {
    if (lrs) await lrs.stop()
    await store.stop()
  }
}

main().catch((err) => { console.error(err); process.exit(1) })
