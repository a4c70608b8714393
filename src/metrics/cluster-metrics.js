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

const fs = require('node:fs')
const path = require('node:path')
const crypto = require('node:crypto')
const { AggregatorRegistry, Registry } = require('prom-client')
const { createProcessRegistry } = require('./instruments')

const LOCK_STALE_MS = 30000

function processExists (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

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

  async function snapshot () {
    return { pid: process.pid, at: Date.now(), lrs: await instruments.registry.getMetricsAsJSON(), process: await processRegistry.getMetricsAsJSON() }
  }

  // Publications run one after the other, and none after stop(): a late
  // one would bring back a file already folded into retired.json, whose
  // counters would then be counted twice.
  let publishing = Promise.resolve()
  let stopped = false
  function publish () {
    publishing = publishing.catch(() => {}).then(async () => {
      if (stopped) return
      await fs.promises.mkdir(dir, { recursive: true })
      await writeJson(own, await snapshot())
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
    await publish()
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
        await publish()
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
