'use strict'

// Forwarding's cost and lag (issue 56): one LRS (npm start: PM2, a worker
// per core) ingesting a steady `--rate` of statements/s for `--seconds`,
// with forwarding off and on (LRS_FORWARD_URLS: `--upstreams` upstreams on
// this machine that answer at once and note when each statement arrived),
// alternated `--repetitions` times. Per run: statements acknowledged per
// second (of the rate offered), and with forwarding the lag of each
// statement, from its acknowledgement to its arrival upstream (P50, P99,
// max), every acknowledged statement's deliveries (missing, extra).
//
//   node bench/forwarding.js [--rate 2000] [--seconds 20] [--upstreams 1] [--repetitions 3] [--out <folder>]
//
// BENCH_ENGINE picks the engine (sqlite; ferretdb needs `npm run
// ferretdb`). Statements of the campus profile (bench/statement-generator.js:
// 100,000 learners, a registration per attempt), POSTs of 10 statements.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const http = require('node:http')
const crypto = require('node:crypto')
const { parseArgs } = require('node:util')
const { execFileSync } = require('node:child_process')
const { startStore } = require('./store')
const { startLrs } = require('./lrs-process')
const { scormStatement, describeProfile } = require('./statement-generator')
const { steadyLoad } = require('../test/helpers/steady-load')

const PER_REQUEST = 10

function receiver () {
  const arrived = new Map() // id -> first arrival (ms)
  let extra = 0
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const now = Date.now()
      const list = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      for (const s of list) {
        if (arrived.has(s.id)) extra++
        else arrived.set(s.id, now)
      }
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify(list.map((s) => s.id)))
    })
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    arrived,
    extra: () => extra,
    url: `http://up:pw@127.0.0.1:${server.address().port}/xapi`,
    close: () => { server.closeAllConnections(); return new Promise((resolve) => server.close(resolve)) }
  })))
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const percentile = (sorted, p) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null
const median = (values) => { const s = [...values].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : null }

async function run ({ forwarding, rate, seconds, engine, offset, upstreams }) {
  const store = await startStore(engine)
  const ups = forwarding ? await Promise.all(Array.from({ length: upstreams }, () => receiver())) : []
  const lrs = await startLrs({ store, env: ups.length ? { LRS_FORWARD_URLS: ups.map((u) => u.url).join(',') } : {} })
  let i = offset
  try {
    const load = steadyLoad({ hosts: [{ name: 'lrs', url: lrs.url }], admin: { user: 'bench', password: 'bench-secret' }, rate, perRequest: PER_REQUEST, maxInFlight: 256, statement: () => ({ id: crypto.randomUUID(), ...scormStatement(i++) }) })
    const started = Date.now()
    await sleep(seconds * 1000)
    await load.stop()
    const elapsed = (Date.now() - started) / 1000
    const out = { forwarding, offered: rate, acknowledged: load.acknowledged.size, acknowledgedPerSecond: Math.round(load.acknowledged.size / elapsed), statuses: countBy(load.answers.map((a) => a.status)) }
    if (ups.length) {
      const deadline = Date.now() + 120000
      const ids = [...load.acknowledged]
      const everywhere = (id) => ups.every((up) => up.arrived.has(id))
      while (Date.now() < deadline && ids.some((id) => !everywhere(id))) await sleep(200)
      // each statement's lag at each upstream
      const lags = ups.flatMap((up) => ids.filter((id) => up.arrived.has(id)).map((id) => up.arrived.get(id) - load.acknowledgedAt.get(id))).sort((a, b) => a - b)
      Object.assign(out, { upstreams: ups.length, missing: ups.reduce((n, up) => n + ids.filter((id) => !up.arrived.has(id)).length, 0), extraDeliveries: ups.reduce((n, up) => n + up.extra(), 0), lagMs: { p50: percentile(lags, 0.5), p99: percentile(lags, 0.99), max: lags[lags.length - 1] } })
    }
    return out
  } finally {
    await lrs.stop()
    for (const up of ups) await up.close()
    await store.stop()
  }
}

function countBy (values) {
  const out = {}
  for (const v of values) out[v] = (out[v] || 0) + 1
  return out
}

async function main () {
  const { values: args } = parseArgs({ options: { rate: { type: 'string', default: '2000' }, seconds: { type: 'string', default: '20' }, upstreams: { type: 'string', default: '1' }, repetitions: { type: 'string', default: '3' }, out: { type: 'string' } } })
  const rate = Number(args.rate)
  const seconds = Number(args.seconds)
  const engine = process.env.BENCH_ENGINE || 'sqlite'
  const commit = (() => { try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim() } catch { return null } })()
  const runs = []
  for (let r = 0; r < Number(args.repetitions); r++) {
    for (const forwarding of [false, true]) {
      const result = await run({ forwarding, rate, seconds, engine, offset: runs.length * rate * seconds * 2, upstreams: Number(args.upstreams) })
      process.stdout.write(`${JSON.stringify(result)}\n`)
      runs.push(result)
    }
  }
  const off = runs.filter((x) => !x.forwarding)
  const on = runs.filter((x) => x.forwarding)
  const results = {
    date: new Date().toISOString(),
    commit,
    engine,
    rate,
    seconds,
    upstreams: Number(args.upstreams),
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0].model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    data: `${describeProfile().text}, POSTs of ${PER_REQUEST}`,
    median: {
      acknowledgedPerSecondOff: median(off.map((x) => x.acknowledgedPerSecond)),
      acknowledgedPerSecondOn: median(on.map((x) => x.acknowledgedPerSecond)),
      lagP50Ms: median(on.map((x) => x.lagMs.p50)),
      lagP99Ms: median(on.map((x) => x.lagMs.p99))
    },
    runs
  }
  results.median.onOverOff = results.median.acknowledgedPerSecondOff ? +(results.median.acknowledgedPerSecondOn / results.median.acknowledgedPerSecondOff).toFixed(3) : null
  if (args.out) {
    fs.mkdirSync(args.out, { recursive: true })
    fs.writeFileSync(path.join(args.out, 'results.json'), JSON.stringify(results, null, 2) + '\n')
    fs.writeFileSync(path.join(args.out, 'README.md'), report(results))
  }
  process.stdout.write(`${JSON.stringify(results.median)}\n`)
}

function report (r) {
  const rows = r.runs.map((x, n) => `| ${n + 1} | ${x.forwarding ? 'on' : 'off'} | ${x.acknowledgedPerSecond} | ${x.forwarding ? `${x.lagMs.p50} / ${x.lagMs.p99} / ${x.lagMs.max}` : '–'} | ${x.forwarding ? `${x.missing} / ${x.extraDeliveries}` : '–'} |`).join('\n')
  return `# Forwarding: ingest with and without, and the lag (issue 56)

\`node bench/forwarding.js --rate ${r.rate} --seconds ${r.seconds} --upstreams ${r.upstreams}\` (BENCH_ENGINE=${r.engine}), ${r.date}, commit ${r.commit || 'unknown'}.
Machine: ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memoryGiB} GiB, Node.js ${r.machine.node}; the LRS (PM2, a worker per core),
the upstream (answers at once) and the load generator share it. Data: ${r.data}. Runs alternate off and on.

| run | forwarding | acknowledged/s (of ${r.rate} offered) | lag ms P50 / P99 / max (acknowledgement to arrival, at every upstream) | missing / extra (all upstreams) |
|---|---|---|---|---|
${rows}

Medians: ${r.median.acknowledgedPerSecondOff} acknowledged/s without forwarding, ${r.median.acknowledgedPerSecondOn} with (${r.median.onOverOff} of it); lag P50 ${r.median.lagP50Ms} ms, P99 ${r.median.lagP99Ms} ms.
`
}

main().catch((err) => { console.error(err); process.exit(1) })
