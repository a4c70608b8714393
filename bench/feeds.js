'use strict'

// Live feeds under ingest (issue 56): one LRS (npm start: PM2, a worker per
// core) ingesting a steady `--rate` of statements/s for `--seconds`, with
// no feed open and with `--feeds` feeds open (GET /feed/statements, read by
// bench/feed-readers.js in a process of its own): `--unfiltered` of them
// take every statement, the others each one course (activity=<course>,
// related_activities=true), courses spread over them. Alternated
// `--repetitions` times. Per run: statements acknowledged per second; with
// feeds, each event's delay from its write's acknowledgement to its arrival
// (P50, P99, max), events missing and repeated (each feed against the
// statements acknowledged that match it), and the workers' memory while
// the feeds are open (first and last sample, most).
//
//   node bench/feeds.js [--rate 2000] [--seconds 20] [--feeds 200] [--unfiltered 10] [--repetitions 3] [--out <folder>]
//
// BENCH_ENGINE picks the engine (sqlite; ferretdb needs `npm run
// ferretdb`). Statements of the campus profile (bench/statement-generator.js:
// 100,000 learners, a registration per attempt, 67 courses), POSTs of 10.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { fork, execFileSync } = require('node:child_process')
const { parseArgs } = require('node:util')
const { startStore } = require('./store')
const { startLrs, rssMiB } = require('./lrs-process')
const { scormStatement, describeProfile } = require('./statement-generator')
const { steadyLoad } = require('../test/helpers/steady-load')

const PER_REQUEST = 10
const ADMIN = { user: 'bench', password: 'bench-secret' }
const COURSES = 67

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const percentile = (sorted, p) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null
const median = (values) => { const s = values.filter((v) => v !== null && v !== undefined).sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : null }
const courseUrl = (c) => `http://lms.example.com/courses/course-${c}`

function startReaders () {
  const child = fork(path.join(__dirname, 'feed-readers.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const next = () => new Promise((resolve, reject) => {
    child.once('message', resolve)
    child.once('exit', (code) => reject(new Error(`feed readers exited (${code})`)))
  })
  return {
    async open (message) { const answer = next(); child.send({ type: 'open', ...message }); return answer },
    async report () { const answer = next(); child.send({ type: 'report' }); return answer },
    kill: () => { if (child.exitCode === null) child.kill('SIGKILL') }
  }
}

async function run ({ feeds, unfiltered, rate, seconds, engine, offset }) {
  const store = await startStore(engine)
  const lrs = await startLrs({ store, env: { LRS_FEED_MAX_PER_CREDENTIAL: String(Math.max(10, feeds)) } })
  const readers = feeds ? startReaders() : null
  const courseOf = new Map() // statement id -> its course
  let i = offset
  try {
    const queries = Array.from({ length: feeds }, (_, n) => n < unfiltered ? '' : `activity=${encodeURIComponent(courseUrl(n % COURSES))}&related_activities=true`)
    if (readers) {
      const opened = await readers.open({ url: lrs.url, authorization: 'Basic ' + Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64'), queries })
      if (opened.openFailures) throw new Error(`${opened.openFailures} feeds refused`)
    }
    const memory = []
    const sample = () => memory.push(Math.round(rssMiB(lrs.workerPids())))
    sample()
    const sampler = setInterval(sample, 2000)
    const load = steadyLoad({
      hosts: [{ name: 'lrs', url: lrs.url }],
      admin: ADMIN,
      rate,
      perRequest: PER_REQUEST,
      maxInFlight: 256,
      statement: () => {
        const s = { id: crypto.randomUUID(), ...scormStatement(i++) }
        courseOf.set(s.id, s.context.contextActivities.grouping[0].id)
        return s
      }
    })
    const started = Date.now()
    await sleep(seconds * 1000)
    await load.stop()
    const elapsed = (Date.now() - started) / 1000
    await sleep(3000) // the last events on their way
    clearInterval(sampler)
    sample()
    const out = { feeds, unfiltered, offered: rate, acknowledged: load.acknowledged.size, acknowledgedPerSecond: Math.round(load.acknowledged.size / elapsed), statuses: countBy(load.answers.map((a) => a.status)), workerRssMiB: { first: memory[0], last: memory[memory.length - 1], max: Math.max(...memory), every2s: memory } }
    if (readers) {
      const report = await readers.report()
      const acknowledged = [...load.acknowledged]
      const lags = []
      let missing = 0
      let repeated = 0
      let events = 0
      let ended = 0
      for (const [n, feed] of report.feeds.entries()) {
        const course = n < unfiltered ? null : courseUrl(n % COURSES)
        const seen = new Set()
        for (const [id, at] of feed.arrivals) {
          events++
          if (seen.has(id)) { repeated++; continue }
          seen.add(id)
          const ackAt = load.acknowledgedAt.get(id)
          if (ackAt !== undefined) lags.push(at - ackAt)
        }
        for (const id of acknowledged) if ((course === null || courseOf.get(id) === course) && !seen.has(id)) missing++
        if (feed.ended) ended++
      }
      lags.sort((a, b) => a - b)
      Object.assign(out, { events, missing, repeated, feedsEnded: ended, lagMs: { p50: percentile(lags, 0.5), p99: percentile(lags, 0.99), max: lags[lags.length - 1] } })
    }
    return out
  } finally {
    if (readers) readers.kill()
    await lrs.stop()
    await store.stop()
  }
}

function countBy (values) {
  const out = {}
  for (const v of values) out[v] = (out[v] || 0) + 1
  return out
}

async function main () {
  const { values: args } = parseArgs({ options: { rate: { type: 'string', default: '2000' }, seconds: { type: 'string', default: '20' }, feeds: { type: 'string', default: '200' }, unfiltered: { type: 'string', default: '10' }, repetitions: { type: 'string', default: '3' }, out: { type: 'string' } } })
  const rate = Number(args.rate)
  const seconds = Number(args.seconds)
  const feeds = Number(args.feeds)
  const unfiltered = Math.min(feeds, Number(args.unfiltered))
  const engine = process.env.BENCH_ENGINE || 'sqlite'
  const commit = (() => { try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim() } catch { return null } })()
  const runs = []
  for (let r = 0; r < Number(args.repetitions); r++) {
    for (const open of [0, feeds]) {
      const result = await run({ feeds: open, unfiltered: open ? unfiltered : 0, rate, seconds, engine, offset: runs.length * rate * seconds * 2 })
      process.stdout.write(`${JSON.stringify(result)}\n`)
      runs.push(result)
    }
  }
  const off = runs.filter((x) => !x.feeds)
  const on = runs.filter((x) => x.feeds)
  const results = {
    date: new Date().toISOString(),
    commit,
    engine,
    rate,
    seconds,
    feeds,
    unfiltered,
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0].model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version, loadAverage: os.loadavg() },
    data: `${describeProfile().text}, POSTs of ${PER_REQUEST}`,
    median: {
      acknowledgedPerSecondWithout: median(off.map((x) => x.acknowledgedPerSecond)),
      acknowledgedPerSecondWith: median(on.map((x) => x.acknowledgedPerSecond)),
      lagP50Ms: median(on.map((x) => x.lagMs.p50)),
      lagP99Ms: median(on.map((x) => x.lagMs.p99)),
      missing: on.reduce((n, x) => n + x.missing, 0),
      repeated: on.reduce((n, x) => n + x.repeated, 0)
    },
    runs
  }
  if (args.out) {
    fs.mkdirSync(args.out, { recursive: true })
    fs.writeFileSync(path.join(args.out, 'results.json'), JSON.stringify(results, null, 2) + '\n')
    fs.writeFileSync(path.join(args.out, 'README.md'), report(results))
  }
  process.stdout.write(`${JSON.stringify(results.median)}\n`)
}

function report (r) {
  const rows = r.runs.map((x, n) => `| ${n + 1} | ${x.feeds} | ${x.acknowledgedPerSecond} | ${x.feeds ? `${x.events.toLocaleString('en-US')} | ${x.lagMs.p50} / ${x.lagMs.p99} / ${x.lagMs.max} | ${x.missing} / ${x.repeated}` : '– | – | –'} | ${x.workerRssMiB.first} → ${x.workerRssMiB.last} (max ${x.workerRssMiB.max}) |`).join('\n')
  return `# Live feeds under ingest (issue 56)

\`node bench/feeds.js --rate ${r.rate} --seconds ${r.seconds} --feeds ${r.feeds} --unfiltered ${r.unfiltered}\` (BENCH_ENGINE=${r.engine}), ${r.date}, commit ${r.commit || 'unknown'}.
Machine: ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memoryGiB} GiB, Node.js ${r.machine.node}; the LRS (PM2, a worker per core),
the feed readers (one process) and the load generator share it. Data: ${r.data}. Of the ${r.feeds} feeds, ${r.unfiltered} take every
statement, the others one course each (activity=<course>&related_activities=true, ${COURSES} courses). Runs alternate without and with feeds.

| run | feeds | acknowledged/s (of ${r.rate} offered) | events delivered | delay ms P50 / P99 / max (acknowledgement to arrival) | missing / repeated | workers' memory MiB (first → last, max) |
|---|---|---|---|---|---|---|
${rows}

Medians: ${r.median.acknowledgedPerSecondWithout} acknowledged/s without feeds, ${r.median.acknowledgedPerSecondWith} with; delay P50 ${r.median.lagP50Ms} ms, P99 ${r.median.lagP99Ms} ms; ${r.median.missing} missing, ${r.median.repeated} repeated in all.
`
}

main().catch((err) => { console.error(err); process.exit(1) })
