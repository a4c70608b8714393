'use strict'

// What `npm run bench` will run and about how long it will take, said at
// its start (bench/run.js): the scenarios of the run and, for each, an
// estimate computed from its settings (bench/scenarios.js's PROFILES):
// its phases times their durations, plus what starting and stopping
// things costs (COSTS). The quick run (no --full, no scenario named) is
// kept under five minutes on a 2-core machine: the scenarios marked
// `fullOnly` run in it only when named.
//
// COSTS were measured on the 2-core VM (2026-12-06) while other work
// shared it (1-minute load 5 to 8): on a quiet 2-core machine things
// start and fill faster, so the estimate is an upper bound there; on a
// larger machine PM2 starts more workers (one per core) and the estimate
// for them grows. The run prints its real time at the end beside it.

const os = require('node:os')
const { scenarios, PROFILES } = require('./scenarios')
const { settingsFromEnv } = require('./cores')

const COSTS = {
  run: 3, // loading the modules, the machine's load sampled at the start and the end (a second each)
  scenario: 1, // a scenario's report, results.json and plots written
  lrsStart: 1, // pm2-runtime up and ready ...
  lrsStartPerWorker: 2.2, // ... and each worker after it (PM2 starts them one after the other)
  // stopping an LRS: its shutdown grace (LRS_SHUTDOWN_GRACE_MS, 5 s), which
  // an LRS under PM2 waits out even when idle
  lrsStop: 5.5,
  ferretdbStart: 1,
  phase: 0.3, // a load phase's start and end (autocannon, /proc and pm2 reads)
  storeRead: 1, // a store counted, measured on disk, or opened in this process
  credential: 1, // a credential made and verified by every worker
  fillPerSecond: { sqlite: 6000, ferretdb: 3000, mongodb: 3000 }, // statements into a store through the engine's own write path
  queryMs: 5, // a GET /statements of a small store over HTTP
  exportMsPerStatement: 0.05, // a small store's export
  ferretdbQueryMsPerStatement: 0.25, // FerretDB reads every statement for a filtered query
  rawPerSecond: 6000, // bulk-load: the engine's raw insert
  importPerSecond: 4000, // npm run import
  importStart: 2,
  apiPerSecond: 3400, // POST /statements, batches of 100 (bulk-load, scale)
  exportFilePerSecond: 30000, // an export-like file written
  storeSetup: 0.35, // stores: a store, its credential and another, made and verified by every worker
  poolPerSecond: 5700, // cores: the writer-alone scenario's 400,000 records built once
  writerPool: 400000,
  pm2List: 1, // cores: `pm2 jlist` around a measurement
  purgePerSecond: 20000, // store-delete: statements purged
  purgeStart: 5,
  scaleQueryMs: 15 // scale: a GET /statements at every size, under ingest
}

const lrsStart = (c, workers) => c.lrsStart + c.lrsStartPerWorker * workers
const fill = (c, engine, n) => n / (c.fillPerSecond[engine] || c.fillPerSecond.sqlite)
const storeStart = (c, engine) => (engine === 'sqlite' ? 0 : c.ferretdbStart)

// Per scenario: seconds for one repetition, from the settings its run()
// takes. ctx: { profile, engine, remote, repeat, cores, workers (of an
// LRS started with LRS_INSTANCES unset: one per core), env, costs }.
const ESTIMATES = {
  ingest ({ profile, engine, remote, workers, costs: c }) {
    const s = PROFILES.ingest[profile]
    const engines = profile === 'full' ? s.engines : [engine]
    const rows = s.batches.length * s.connections.length
    if (remote) return rows * (s.duration + c.phase)
    return engines.reduce((t, e) => t + 2 * storeStart(c, e) + lrsStart(c, workers) + rows * (2 * s.duration + c.phase) + c.lrsStop + c.storeRead, 0)
  },
  soak ({ profile, engine, remote, workers, costs: c }) {
    const s = PROFILES.soak[profile]
    return (remote ? 0 : storeStart(c, engine) + lrsStart(c, workers) + c.lrsStop) + s.seconds + c.phase
  },
  sessions ({ profile, engine, remote, workers, costs: c }) {
    const s = PROFILES.sessions[profile]
    // every level (it stops early once P99 passes 5 s), then the sessions' last requests
    const levels = Math.floor(s.maxLearners / s.stepLearners)
    const drain = (1.5 * s.intervalMs) / 1000 + c.phase
    return (remote ? 0 : storeStart(c, engine) + fill(c, engine, s.prefilled) + lrsStart(c, workers) + c.lrsStop) + levels * s.stepSeconds + drain
  },
  stores ({ profile, engine, workers, costs: c }) {
    const s = PROFILES.stores[profile]
    const phases = s.pairs * 4 // four kinds of phase, each pair
    return 4 * (storeStart(c, engine) + lrsStart(c, workers) + c.lrsStop) + s.stores * c.storeSetup + phases * (s.seconds + c.phase + 0.5)
  },
  'stores-query' ({ profile, engine, env, workers, costs: c }) {
    const s = PROFILES.storesQuery[profile]
    const big = env.BENCH_STORES_QUERY_BIG ? Number(env.BENCH_STORES_QUERY_BIG) : s.big
    const shapes = 9 // every GET /statements shape but the time ranges
    const queries = s.rounds * shapes * 2 * s.queries + 2 * shapes * 5 // timed, and each shape's warm-up
    const exportMs = 2 * s.small * c.exportMsPerStatement // the small store's export, beside and alone
    return 2 * (storeStart(c, engine) + c.storeRead + lrsStart(c, workers) + c.credential + c.lrsStop) + fill(c, engine, big + 2 * s.small) + (queries * c.queryMs + exportMs) / 1000
  },
  'store-delete' ({ profile, engine, workers, costs: c }) {
    const s = PROFILES.storeDelete[profile]
    const during = Math.ceil((c.purgeStart + s.big / c.purgePerSecond) / s.seconds)
    return storeStart(c, engine) + fill(c, engine, s.big + s.other) + lrsStart(c, workers) + c.credential + (2 * s.baselines + during) * (s.seconds + c.phase) + c.lrsStop
  },
  overload ({ profile, engine, remote, workers, costs: c }) {
    const s = PROFILES.overload[profile]
    return (remote ? 0 : storeStart(c, engine) + lrsStart(c, workers) + c.lrsStop) + s.connections.length * (s.seconds + c.phase)
  },
  'bulk-load' ({ profile, engine, env, workers, costs: c }) {
    const s = PROFILES.bulkLoad[profile]
    const n = env.BENCH_STATEMENTS ? Number(env.BENCH_STATEMENTS) : s.count
    const ways = env.BENCH_BULK_WAYS ? env.BENCH_BULK_WAYS.split(',').map((w) => w.trim()) : ['raw', 'import', 'api']
    const way = {
      raw: storeStart(c, engine) + n / c.rawPerSecond,
      import: storeStart(c, engine) + c.importStart + n / c.importPerSecond,
      api: storeStart(c, engine) + lrsStart(c, workers) + n / c.apiPerSecond + c.lrsStop,
      http: storeStart(c, engine) + lrsStart(c, workers) + n / c.importPerSecond + c.lrsStop
    }
    return n / c.exportFilePerSecond + s.repeat * ways.reduce((t, w) => t + (way[w] || 0), 0)
  },
  engines ({ profile, costs: c }) {
    const s = PROFILES.engines[profile]
    let t = 0
    for (const e of s.engines) {
      const sizes = s.sizes.filter((n) => n <= (s.maxSize[e] ?? Infinity))
      const queryMs = (n) => (e === 'sqlite' ? 1 : 50 + c.ferretdbQueryMsPerStatement * n)
      t += storeStart(c, e) + fill(c, e, sizes.length ? sizes[sizes.length - 1] : 0) + sizes.reduce((q, n) => q + ((s.queries + 2) * queryMs(n)) / 1000 + c.storeRead, 0)
    }
    return t
  },
  cores ({ profile, engine, repeat, cores, env, costs: c }) {
    const s = { ...PROFILES.cores[profile], ...settingsFromEnv(env), ...(repeat && { repeat }) }
    const alone = s.alone !== false
    const largest = Math.max(...s.workers)
    const perCount = (w) => {
      const measures = 1 + (s.rate ? 1 : 0) + (s.matched && w !== largest ? 1 : 0) + (w === largest ? s.overload.length : 0)
      const warmup = s.warmupSeconds * Math.max(1, w / cores) // cores.js warmupFor
      return storeStart(c, engine) + lrsStart(c, w) + c.pm2List + warmup + measures * (s.seconds + c.phase + c.pm2List) + c.lrsStop
    }
    const round = (alone ? storeStart(c, engine) + c.storeRead + s.seconds + (engine === 'sqlite' ? c.storeRead + s.seconds : 0) : 0) + s.workers.reduce((t, w) => t + perCount(w), 0)
    return (alone && engine === 'sqlite' ? c.writerPool / c.poolPerSecond : 0) + s.repeat * round
  },
  scale ({ profile, env, workers, costs: c }) {
    const s = PROFILES.scale[profile]
    const statements = env.BENCH_SCALE_STATEMENTS ? Number(env.BENCH_SCALE_STATEMENTS) : s.statements
    const step = env.BENCH_SCALE_STEP ? Number(env.BENCH_SCALE_STEP) : s.step
    const viaLrs = (env.BENCH_SCALE_FILL || s.fill) === 'lrs'
    const steps = Math.ceil(statements / step)
    const posted = viaLrs ? statements : Math.min(statements, 2 * step)
    const imported = statements - posted
    const importSteps = viaLrs ? 0 : Math.max(0, steps - 2)
    const queries = steps * 11 * (2 * s.queries + 4) // every shape, pages of 100 and of 2, after each step
    return lrsStart(c, workers) + c.lrsStop + posted / c.apiPerSecond + importSteps * c.importStart + imported * (1 / c.importPerSecond + 1 / c.exportFilePerSecond) + (queries * c.scaleQueryMs) / 1000
  }
}

// The scenarios a run without names runs: every one but those that run
// only when named, and in the quick profile but the fullOnly ones.
function defaultScenarios (profile) {
  return Object.keys(scenarios).filter((n) => !scenarios[n].onlyWhenNamed && (profile === 'full' || !scenarios[n].fullOnly))
}

// { scenarios: [{ name, seconds }], seconds }: the estimate of a run of
// `names` (default: defaultScenarios(profile)). repeat: --repeat's count
// (null: the profile's, 3 in --full); target: { engine } or { url }.
function planRun ({ names = null, profile = 'quick', target = { engine: 'sqlite' }, repeat = null, cores = os.cpus().length, env = process.env, costs = COSTS } = {}) {
  const list = names && names.length ? names : defaultScenarios(profile)
  const times = repeat ?? (profile === 'full' ? 3 : 1)
  const workers = Number(env.LRS_INSTANCES) > 0 ? Number(env.LRS_INSTANCES) : cores // as lrs-process.js starts it
  const ctx = { profile, engine: target.engine || 'sqlite', remote: Boolean(target.url), repeat, cores, workers, env, costs }
  const planned = list.map((name) => {
    const scenario = scenarios[name]
    if (!scenario) throw new Error(`unknown scenario ${name}`)
    if (target.url && !scenario.remote) return { name, seconds: 0 }
    const once = ESTIMATES[name](ctx)
    return { name, seconds: Math.round((scenario.repeatsInside ? once : times * once) + costs.scenario) }
  })
  return { profile, scenarios: planned, seconds: costs.run + planned.reduce((t, s) => t + s.seconds, 0) }
}

// "3 min 40 s", "1 h 25 min", "45 s".
function duration (seconds) {
  const s = Math.round(seconds)
  if (s < 60) return `${s} s`
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`
  const min = Math.round(s / 60)
  return `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`
}

// An estimate in words, rounded up: to 10 s under ten minutes, to the
// minute under an hour, to 5 minutes beyond.
function about (seconds) {
  const step = seconds < 600 ? 10 : seconds < 3600 ? 60 : 300
  return `about ${duration(Math.ceil(seconds / step) * step)}`
}

module.exports = { planRun, defaultScenarios, duration, about, ESTIMATES, COSTS }
