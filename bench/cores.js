'use strict'

// Cores sweep: does ingest scale with PM2 workers? 20-statement batches on
// 64 connections (closed loop) to the LRS under pm2-runtime at
// LRS_INSTANCES = 1, 2, 4, 8 ... workers, each count on a fresh store, and
// in the same run the engine alone: the same batches through
// storage.statements.storeBatch in this process (bench/ingest.js's raw
// run), same batch and concurrency. Per worker count: statements/s, P50/P99
// of accepted requests, and the CPU per statement of every LRS process:
// the PM2 apps in LRS_APPS (the `lrs` workers, and the single SQLite writer
// `lrs-writer` where ecosystem.config.js has one), found by name in
// `pm2 jlist`. At the largest count, overload: 4x and 16x the connections,
// accepted statements/s as a share of that count's 64-connection rate,
// accepted P99, 429s, 5xx, the LRS processes' peak RSS.
//
// Repetitions alternate the counts (1, 2, 4, 8, then 1, 2, 4, 8 again,
// the engine alone before each round); every figure is the median over
// them. The criteria of the issue are checked in words (checkCriteria).
//
// Settings (scenario `cores` of `npm run bench`, or here):
//   BENCH_WORKERS=1,2,8      worker counts (default: 1, 2, 4 ... up to the
//                            machine's cores, at least 8 (16 in --full))
//   BENCH_DURATION=5         seconds per measurement
//   BENCH_REPEAT=2           rounds over the worker counts
//   BENCH_CONNECTIONS=64     connections of the sweep
//   BENCH_OVERLOAD=4,16      overload multiples of them at the largest count (`none`: skip)
//   BENCH_WARMUP=1           seconds of load before each measurement, not counted, per
//                            worker per core where workers outnumber cores (warmupFor)
//   BENCH_ALONE=0            no engine alone nor writer process alone (a quick look at the LRS only)
//   BENCH_RATE=4000          also offer every count the same statements/s (open loop): the CPU
//                            per statement at equal load. A worker's statement costs more the
//                            less busy the worker is (each request wakes it, on cold caches):
//                            the closed-loop sweep's CPU per statement at 16 workers, held to
//                            the writer's rate, mixes that with any cost of the count itself.
//   BENCH_MATCHED=1          also measure every smaller count at the largest count's connections
//                            per worker (2 workers at 16 when 8 have 64): a worker's statement
//                            costs more the fewer requests it holds at once, and at a fixed 64
//                            connections 8 workers hold a quarter of what 2 do. This row tells
//                            that cost apart from what the number of processes costs.

const os = require('node:os')
const { startLrs, cpuSeconds } = require('./lrs-process')
const { startStore } = require('./store')
const { runRaw, openRawStorage } = require('./ingest')
const { step, batchPool, BATCH } = require('./overload-ramp')
const { writerAlone } = require('./writer-feed')
const { median } = require('./report')

const LRS_APPS = ['lrs', 'lrs-writer']
const AUTH = 'bench:bench-secret'

// 1, 2, 4 ... up to the machine's cores, at least `atLeast`.
function defaultWorkers (atLeast) {
  const top = Math.max(atLeast, os.cpus().length)
  const counts = []
  for (let n = 1; n < top; n *= 2) counts.push(n)
  return [...counts, top]
}

function numbers (text, name) {
  const list = text.split(',').map((x) => Number(x.trim()))
  if (!list.length || list.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`${name} takes whole numbers from 1, comma-separated (got ${text})`)
  return list
}

// The BENCH_* overrides of a profile's settings.
function settingsFromEnv (env = process.env) {
  const out = {}
  if (env.BENCH_WORKERS) out.workers = numbers(env.BENCH_WORKERS, 'BENCH_WORKERS')
  if (env.BENCH_DURATION) out.seconds = numbers(env.BENCH_DURATION, 'BENCH_DURATION')[0]
  if (env.BENCH_REPEAT) out.repeat = numbers(env.BENCH_REPEAT, 'BENCH_REPEAT')[0]
  if (env.BENCH_CONNECTIONS) out.connections = numbers(env.BENCH_CONNECTIONS, 'BENCH_CONNECTIONS')[0]
  if (env.BENCH_OVERLOAD) out.overload = env.BENCH_OVERLOAD === 'none' ? [] : numbers(env.BENCH_OVERLOAD, 'BENCH_OVERLOAD')
  if (env.BENCH_WARMUP) out.warmupSeconds = Number(env.BENCH_WARMUP)
  if (env.BENCH_ALONE === '0') out.alone = false
  if (env.BENCH_RATE) out.rate = numbers(env.BENCH_RATE, 'BENCH_RATE')[0]
  if (env.BENCH_MATCHED === '1') out.matched = true
  return out
}

// One closed-loop load of `seconds` (overload-ramp's step) with the CPU of
// every LRS process around it: /proc before and after, per process; a
// process PM2 started during the load (a restart) counts whole, one that
// ended is lost, and `restarts` says so.
async function measure (lrs, { connections, seconds, pool, rate = null }) {
  const before = lrs.appProcesses(LRS_APPS)
  const pids = before.map((p) => p.pid)
  const cpuBefore = new Map(pids.map((pid) => [pid, cpuSeconds(pid)]))
  const started = process.hrtime.bigint()
  const s = await step({ url: lrs.url, workerPids: () => pids }, { connections, seconds, auth: AUTH, pool, rate })
  const wall = Number(process.hrtime.bigint() - started) / 1e9
  const cpuByApp = {}
  const add = (name, cpu) => { cpuByApp[name] = (cpuByApp[name] || 0) + cpu }
  for (const p of before) add(p.name, Math.max(0, cpuSeconds(p.pid) - cpuBefore.get(p.pid)))
  const after = lrs.appProcesses(LRS_APPS)
  for (const p of after) if (!cpuBefore.has(p.pid)) add(p.name, cpuSeconds(p.pid))
  const cpu = Object.values(cpuByApp).reduce((a, b) => a + b, 0)
  const accepted = s.acceptedStatementsPerSec
  return {
    connections,
    statementsPerSec: accepted,
    p50Ms: s.p50Ms,
    p99Ms: s.p99Ms,
    cpuMicrosPerStatement: accepted ? Math.round((cpu / wall / accepted) * 1e6) : null,
    lrsCores: Math.round((cpu / wall) * 100) / 100,
    writerCores: cpuByApp['lrs-writer'] === undefined ? null : Math.round((cpuByApp['lrs-writer'] / wall) * 100) / 100,
    refused429: s.refused429,
    fiveXX: s.fiveXX,
    errors: s.errors,
    rssMiB: s.workersRssMiB,
    generatorCpuShare: s.generatorCpuShare,
    restarts: after.reduce((n, p) => n + (p.restarts || 0), 0) - before.reduce((n, p) => n + (p.restarts || 0), 0)
  }
}

// "lrs x8, lrs-writer x1": what PM2 ran.
function describeApps (processes) {
  const count = {}
  for (const p of processes) count[p.name] = (count[p.name] || 0) + 1
  return Object.entries(count).map(([name, n]) => `${name} x${n}`).join(', ')
}

async function engineAlone (engine, { connections, seconds }) {
  const raw = await openRawStorage(engine)
  try {
    const r = await runRaw(raw.storage, { batch: BATCH, connections, duration: seconds })
    return { statementsPerSec: Math.round(r.statementsPerSec), cpuMicrosPerStatement: Math.round(r.engineCpuMicrosPerStatement) }
  } finally {
    await raw.stop()
  }
}

// Seconds of warm-up before a count's measurement: `seconds` for each
// worker per core. Every worker compiles its hot code itself (V8's JIT is
// per process), so 8 workers on 2 cores spend four times the CPU of 2
// workers, out of the same two cores, before they run at their speed:
// measured on the 2-core VM, 8 workers after 2 s of warm-up ingested 61 %
// and 87 % of 2 workers' rate, after 15 s 94 % (and 1.13x the CPU per
// statement instead of 1.72x). A long-running LRS pays that once.
function warmupFor (workers, seconds, cores = os.cpus().length) {
  return seconds * Math.max(1, workers / cores)
}

// The connections that give `workers` as many each as the largest count
// has at `connections`.
function matchedConnections (workers, largest, connections) {
  return Math.max(1, Math.round((connections * workers) / largest))
}

// Every measurement of the sweep, in the order taken: { repetition, part
// ('engine alone', 'workers', 'fixed rate', 'same load per worker',
// 'overload'), workers, apps, ...measure }.
async function coresSweep ({ engine = 'sqlite', workers = defaultWorkers(8), connections = 64, seconds = 10, repeat = 2, overload = [4, 16], warmupSeconds = 1, alone = true, rate = null, matched = false, onStep = () => {} } = {}) {
  const pool = batchPool()
  const largest = Math.max(...workers)
  const steps = []
  const record = (s) => { steps.push(s); onStep(s) }
  for (let repetition = 1; repetition <= repeat; repetition++) {
    if (alone) record({ repetition, part: 'engine alone', workers: null, connections, ...(await engineAlone(engine, { connections, seconds })) })
    if (alone && engine === 'sqlite') {
      // the host's writer process fed by as many clients as the largest
      // count has workers: what the LRS could ingest if HTTP and
      // validation cost nothing (bench/writer-feed.js)
      const w = await writerAlone({ workers: largest, connections, seconds })
      record({ repetition, part: 'writer alone', workers: largest, connections, statementsPerSec: w.statementsPerSec, cpuMicrosPerStatement: Math.round(w.writerCpuMicrosPerStatement), writerCores: w.writerCores, statementsPerTransaction: w.statementsPerTransaction })
    }
    for (const w of workers) {
      const store = await startStore(engine)
      let lrs = null
      try {
        lrs = await startLrs({ store, env: { LRS_INSTANCES: String(w) } })
        const apps = describeApps(lrs.appProcesses(LRS_APPS))
        if (warmupSeconds > 0) await step(lrs, { connections, seconds: warmupFor(w, warmupSeconds), auth: AUTH, pool })
        record({ repetition, part: 'workers', workers: w, apps, ...(await measure(lrs, { connections, seconds, pool })) })
        if (rate) record({ repetition, part: 'fixed rate', workers: w, apps, offered: rate, ...(await measure(lrs, { connections, seconds, pool, rate })) })
        if (matched && w !== largest) record({ repetition, part: 'same load per worker', workers: w, apps, ...(await measure(lrs, { connections: matchedConnections(w, largest, connections), seconds, pool })) })
        if (w !== largest) continue
        for (const times of overload) {
          record({ repetition, part: 'overload', workers: w, apps, ...(await measure(lrs, { connections: connections * times, seconds, pool })) })
        }
      } finally {
        if (lrs) await lrs.stop()
        await store.stop()
      }
    }
  }
  return steps
}

// Medians per worker count and per overload level; every count of refusals
// and failures is the total over the repetitions.
function summarize (steps) {
  const byKey = new Map()
  for (const s of steps) {
    const key = `${s.part}|${s.workers}|${s.connections}`
    if (!byKey.has(key)) byKey.set(key, [])
    byKey.get(key).push(s)
  }
  const engineRate = median(steps.filter((s) => s.part === 'engine alone').map((s) => s.statementsPerSec))
  const writerRate = median(steps.filter((s) => s.part === 'writer alone').map((s) => s.statementsPerSec))
  const alone = (part) => part === 'engine alone' || part === 'writer alone'
  const rows = [...byKey.values()].map((runs) => {
    const [first] = runs
    const m = (k) => median(runs.map((r) => r[k]))
    const sum = (k) => runs.reduce((n, r) => n + (r[k] || 0), 0)
    return {
      part: first.part,
      workers: first.workers,
      apps: first.apps || null,
      connections: first.connections,
      offered: first.offered ?? null, // statements/s, the fixed-rate part
      statementsPerSec: Math.round(m('statementsPerSec')),
      perRepetition: runs.map((r) => r.statementsPerSec).join(' / '),
      share: null, // of the engine alone (workers) or of the same count's sweep rate (overload)
      p50Ms: m('p50Ms'),
      p99Ms: m('p99Ms'),
      cpuMicrosPerStatement: m('cpuMicrosPerStatement'),
      lrsCores: m('lrsCores'),
      writerCores: m('writerCores'),
      refused429: alone(first.part) ? null : sum('refused429'),
      fiveXX: alone(first.part) ? null : sum('fiveXX'),
      errors: alone(first.part) ? null : sum('errors'),
      peakRssMiB: runs.some((r) => r.rssMiB) ? Math.max(...runs.map((r) => r.rssMiB || 0)) : null,
      generatorCpuShare: runs.some((r) => r.generatorCpuShare !== undefined) ? Math.max(...runs.map((r) => r.generatorCpuShare || 0)) : null,
      restarts: alone(first.part) ? null : sum('restarts')
    }
  })
  const sweep = rows.filter((r) => r.part === 'workers').sort((a, b) => a.workers - b.workers)
  for (const r of sweep) r.share = engineRate ? Math.round((r.statementsPerSec / engineRate) * 100) / 100 : null
  const overload = rows.filter((r) => r.part === 'overload').sort((a, b) => a.connections - b.connections)
  const peak = sweep.length ? sweep[sweep.length - 1] : null
  for (const r of overload) r.share = peak && peak.statementsPerSec ? Math.round((r.statementsPerSec / peak.statementsPerSec) * 100) / 100 : null
  const writer = rows.find((r) => r.part === 'writer alone') || null
  if (writer) writer.share = engineRate ? Math.round((writer.statementsPerSec / engineRate) * 100) / 100 : null
  const fixedRate = rows.filter((r) => r.part === 'fixed rate').sort((a, b) => a.workers - b.workers)
  const matched = rows.filter((r) => r.part === 'same load per worker').sort((a, b) => a.workers - b.workers)
  return { engine: rows.find((r) => r.part === 'engine alone') || null, engineRate, writer, writerRate, sweep, fixedRate, matched, overload }
}

const pct = (x) => `${Math.round(x * 100)} %`
const num = (x) => Math.round(x).toLocaleString('en')

// The issue's criteria, each { criterion, verdict: 'pass' | 'fail' | 'not
// measured', detail }.
function checkCriteria ({ sweep, engineRate, writerRate, fixedRate = [], matched = [] }, { cores = os.cpus().length } = {}) {
  const at = (w) => sweep.find((r) => r.workers === w)
  const checks = []
  const add = (criterion, ok, detail) => checks.push({ criterion, verdict: ok === null ? 'not measured' : ok ? 'pass' : 'fail', detail })

  let worst = null
  for (let i = 1; i < sweep.length; i++) {
    const change = sweep[i].statementsPerSec / sweep[i - 1].statementsPerSec - 1
    if (!worst || change < worst.change) worst = { from: sweep[i - 1].workers, to: sweep[i].workers, change }
  }
  add('rises at every step (no step loses more than 5 %)', worst ? worst.change >= -0.05 : null,
    sweep.map((r) => `${r.workers}: ${num(r.statementsPerSec)}`).join(' -> ') + ' st/s' +
    (worst ? `; weakest step ${worst.from} -> ${worst.to} workers: ${worst.change >= 0 ? '+' : ''}${pct(worst.change)}` : '; needs two worker counts'))

  const w16 = at(16)
  add('16 workers >= 20,000 st/s and >= 90 % of the engine', w16 && engineRate ? w16.statementsPerSec >= 20000 && w16.statementsPerSec >= 0.9 * engineRate : null,
    w16 ? `${num(w16.statementsPerSec)} st/s, ${engineRate ? pct(w16.statementsPerSec / engineRate) : '-'} of the engine alone (${engineRate ? num(engineRate) : '-'} st/s)` +
      (writerRate ? `; ${pct(w16.statementsPerSec / writerRate)} of the writer process alone (${num(writerRate)} st/s)` : '') : '16 workers not in the sweep')

  const w2 = at(2)
  const top = sweep[sweep.length - 1]
  const cpuOk = w2 && top && top !== w2 && w2.cpuMicrosPerStatement && top.cpuMicrosPerStatement
  add('CPU per statement at the largest count <= 1.3x that at 2 workers', cpuOk ? top.cpuMicrosPerStatement <= 1.3 * w2.cpuMicrosPerStatement : null,
    (cpuOk ? `${top.workers} workers ${num(top.cpuMicrosPerStatement)} us, 2 workers ${num(w2.cpuMicrosPerStatement)} us: ${(top.cpuMicrosPerStatement / w2.cpuMicrosPerStatement).toFixed(2)}x` : 'needs 2 workers and a larger count') +
    fixedRateDetail(fixedRate))

  const w8 = at(8)
  add('8 workers >= 95 % of 2 workers (2-core machine)', w8 && w2 ? w8.statementsPerSec >= 0.95 * w2.statementsPerSec : null,
    (w8 && w2 ? `${num(w8.statementsPerSec)} against ${num(w2.statementsPerSec)} st/s: ${pct(w8.statementsPerSec / w2.statementsPerSec)}` : 'needs 2 and 8 workers') +
    matchedDetail(w8, matched.find((r) => r.workers === 2)) +
    (cores === 2 ? '' : `; meant for a 2-core machine, this one has ${cores}`))
  return checks
}

// The same comparison with 2 workers at 8 workers' connections per worker
// (BENCH_MATCHED), when measured.
function matchedDetail (w8, m2) {
  if (!w8 || !m2 || !m2.statementsPerSec) return ''
  return `; at the same connections per worker (2 workers at ${m2.connections}), ${pct(w8.statementsPerSec / m2.statementsPerSec)} (${num(m2.statementsPerSec)} st/s` +
    (w8.cpuMicrosPerStatement && m2.cpuMicrosPerStatement ? `, CPU per statement ${(w8.cpuMicrosPerStatement / m2.cpuMicrosPerStatement).toFixed(2)}x` : '') + ')'
}

// The same comparison at the fixed rate (BENCH_RATE), when measured.
function fixedRateDetail (fixedRate) {
  const f2 = fixedRate.find((r) => r.workers === 2)
  const fTop = fixedRate[fixedRate.length - 1]
  if (!f2 || !fTop || f2 === fTop || !f2.cpuMicrosPerStatement || !fTop.cpuMicrosPerStatement) return ''
  return `; offered ${num(fTop.offered)} st/s each, ${fTop.workers} workers ${num(fTop.cpuMicrosPerStatement)} us, 2 workers ${num(f2.cpuMicrosPerStatement)} us: ${(fTop.cpuMicrosPerStatement / f2.cpuMicrosPerStatement).toFixed(2)}x`
}

module.exports = { coresSweep, summarize, checkCriteria, defaultWorkers, settingsFromEnv, matchedConnections, LRS_APPS }
