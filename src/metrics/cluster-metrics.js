'use strict'

// Cluster-wide metrics whichever worker answers the scrape. PM2 runs the
// workers as children of its own daemon, so there is no cluster master of
// ours to gather them over IPC (what prom-client's AggregatorRegistry
// expects). Instead each worker publishes its metrics as JSON to
// LRS_DATA_DIR/metrics/<worker>.json every LRS_METRICS_PUBLISH_MS, and the
// worker that answers /metrics publishes its own at once, reads every
// file and merges them: counters and histograms summed, gauges of work in
// flight summed, process metrics kept per worker (`worker` label).
//
// Counters must never go down, or Prometheus sees a reset: the counters of
// a worker that is gone (its process no longer exists, or it shut down)
// are folded into retired.json, which is summed in too.
//
// A publish costs about 2 ms, most of it prom-client's process metrics
// (reading /proc, heap statistics) and the file's write: per idle worker
// that was half of the 1.75 % of a core it took doing nothing, and on 2
// cores 8 workers' idle costs came out of the statements they stored. So
// the process metrics are collected every PROCESS_EVERY publishes, and a
// worker whose own figures have not moved (instruments.activity())
// publishes only then. The worker answering a scrape publishes all of its
// own first.

const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { AggregatorRegistry, Registry } = require('prom-client')
const { createProcessRegistry } = require('./instruments')
const { processExists } = require('../lib/process-exists')

const LOCK_STALE_MS = 30000
const PROCESS_EVERY = 10

async function readJson (file) {
  try {
    return JSON.parse(await fs.promises.readFile(file, 'utf8'))
  } catch (err) {
    if (err.code === 'ENOENT' || err instanceof SyntaxError) return null
    throw err
  }
}

// Written whole, then renamed over the file: readers never see half of
// it. A failed write (a full disk) removes its temporary file, or one
// would be left per worker per publish.
async function writeJson (file, value) {
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`
  try {
    await fs.promises.writeFile(tmp, JSON.stringify(value))
    await fs.promises.rename(tmp, file)
  } catch (err) {
    await fs.promises.rm(tmp, { force: true })
    throw err
  }
}

// Counters and histograms only: what must keep counting after a worker.
function lasting (metrics) {
  return metrics.filter((m) => m.type === 'counter' || m.type === 'histogram')
}

function merge (metricLists) {
  const all = metricLists.flat().map((m) => ({ ...m, aggregator: 'sum' }))
  return AggregatorRegistry.aggregate(groupByName(all))
}

// aggregate() takes one list per worker and merges by name; it needs each
// name at most once per list, which holds for whole registries but not for
// a flat list, so the flat list is regrouped.
function groupByName (metrics) {
  const lists = []
  const seen = new Map()
  for (const m of metrics) {
    const n = seen.get(m.name) || 0
    seen.set(m.name, n + 1)
    if (!lists[n]) lists[n] = []
    lists[n].push(m)
  }
  return lists
}

function createClusterMetrics ({ dataDir, publishMs, instruments, logger }) {
  const dir = path.join(dataDir, 'metrics')
  const worker = `${process.pid}-${crypto.randomBytes(3).toString('hex')}`
  const processRegistry = createProcessRegistry(worker)
  const own = path.join(dir, `worker-${worker}.json`)
  const retiredFile = path.join(dir, 'retired.json')
  const lockDir = path.join(dir, 'retired.lock')
  let timer = null

  // What the last publish wrote (activity, process metrics), and how many
  // publishes ago the process metrics were collected.
  let published = null
  let processMetrics = null
  let sinceProcess = 0

  // Publications run one after the other, and none after stop(): a late
  // one would bring back a file already folded into retired.json, whose
  // counters would then be counted twice. `whole`: the process metrics
  // too, and written even if nothing moved.
  let publishing = Promise.resolve()
  let stopped = false
  function publish ({ whole = false } = {}) {
    publishing = publishing.catch(() => {}).then(async () => {
      if (stopped) return
      const activity = instruments.activity()
      const processDue = whole || processMetrics === null || ++sinceProcess >= PROCESS_EVERY
      if (!processDue && activity === published) return
      if (processDue) {
        processMetrics = await processRegistry.getMetricsAsJSON()
        sinceProcess = 0
      }
      published = null // until written: a failed publish is tried again
      await fs.promises.mkdir(dir, { recursive: true })
      await writeJson(own, { pid: process.pid, at: Date.now(), lrs: await instruments.registry.getMetricsAsJSON(), process: processMetrics })
      published = activity
    })
    return publishing
  }

  async function withRetiredLock (fn) {
    try {
      await fs.promises.mkdir(lockDir)
    } catch (err) {
      if (err.code !== 'EEXIST') throw err
      const st = await fs.promises.stat(lockDir).catch(() => null)
      if (!st || Date.now() - st.mtimeMs < LOCK_STALE_MS) return false // another worker is at it
      await fs.promises.rm(lockDir, { recursive: true, force: true })
      return withRetiredLock(fn)
    }
    try {
      await fn()
      return true
    } finally {
      await fs.promises.rm(lockDir, { recursive: true, force: true })
    }
  }

  // Folds the given worker files into retired.json and removes them.
  async function retire (files) {
    return withRetiredLock(async () => {
      const retired = (await readJson(retiredFile)) || { lrs: [] }
      const lists = [retired.lrs]
      for (const file of files) {
        const snap = await readJson(file)
        if (snap) lists.push(lasting(snap.lrs))
      }
      const merged = await merge(lists).getMetricsAsJSON()
      await writeJson(retiredFile, { lrs: merged })
      for (const file of files) await fs.promises.rm(file, { force: true })
    })
  }

  // The cluster's metrics in Prometheus text format.
  async function render (extraRegistries = []) {
    await publish({ whole: true })
    const names = (await fs.promises.readdir(dir)).filter((n) => n.startsWith('worker-') && n.endsWith('.json'))
    const live = []
    const gone = []
    for (const name of names) {
      const file = path.join(dir, name)
      const snap = name === path.basename(own) ? null : await readJson(file)
      if (snap && !processExists(snap.pid)) gone.push(file)
      else live.push(file)
    }
    if (gone.length && !(await retire(gone))) live.push(...gone) // retiring elsewhere: count them this time
    const lrs = []
    const processes = []
    for (const file of live) {
      const snap = await readJson(file)
      if (!snap) continue
      lrs.push(snap.lrs)
      processes.push(snap.process)
    }
    const retired = await readJson(retiredFile)
    if (retired) lrs.push(retired.lrs)
    const merged = merge([...lrs, ...processes])
    const extra = await Promise.all(extraRegistries.map((r) => r.metrics()))
    return (await merged.metrics()) + extra.join('')
  }

  return {
    worker,
    render,
    contentType: Registry.PROMETHEUS_CONTENT_TYPE,
    start () {
      timer = setInterval(() => publish().catch((err) => logger.warn({ err }, 'metrics publish failed')), publishMs)
      timer.unref()
    },
    // On shutdown this worker's counters join the retired ones.
    async stop () {
      clearInterval(timer)
      try {
        await publish({ whole: true })
        stopped = true
        // Another worker may hold the lock for a moment.
        for (let tries = 0; !(await retire([own])) && tries < 40; tries++) await new Promise((resolve) => setTimeout(resolve, 50))
      } catch (err) {
        logger.warn({ err }, 'metrics retire failed')
      }
    }
  }
}

module.exports = { createClusterMetrics }
