'use strict'

// Many filtered forwarders (issue 56): one LRS (npm start: PM2, a worker
// per core) with `--stores` stores, each written to with its own
// credential, ingesting a steady `--rate` of statements/s spread over them
// for `--seconds`; with no forwarder, then with one webhook forwarder per
// store whose filter picks one verb (`--verb`, one statement in seven of
// the campus profile), all to one receiver in a process of its own that
// checks every signature. Alternated `--repetitions` times. Per run:
// statements acknowledged per second; with forwarders, each forwarded
// statement's lag (acknowledgement to arrival), missing and extra.
//
//   node bench/many-forwarders.js [--stores 100] [--rate 2000] [--seconds 20] [--verb completed] [--repetitions 3] [--out <folder>]
//
// SQLite (BENCH_ENGINE picks another). Statements of the campus profile
// (bench/statement-generator.js), POSTs of 10.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const http = require('node:http')
const { parseArgs } = require('node:util')
const { execFileSync } = require('node:child_process')
const { startStore } = require('./store')
const { startLrs } = require('./lrs-process')
const { startTarget } = require('./forward-target')
const { scormStatement, describeProfile } = require('./statement-generator')
const { sampleMachineLoad } = require('./machine-load')
const { steadyLoad } = require('../test/helpers/steady-load')

const PER_REQUEST = 10
const ADMIN = { user: 'bench', password: 'bench-secret' }
const ADL = 'http://adlnet.gov/expapi/verbs/'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const percentile = (sorted, p) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null
const median = (values) => { const s = values.filter((v) => v !== null && v !== undefined).sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : null }
const basic = ({ user, password }) => 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64')

async function admin (lrs, method, url, body, auth = ADMIN) {
  const res = await fetch(lrs.url + url, { method, headers: { Authorization: basic(auth), 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${url} answered ${res.status}: ${text}`)
  return JSON.parse(text)
}

// A GET on a connection of its own (PM2 hands each new connection to the
// next worker; fetch would keep one open to one worker).
function freshGet (url, auth) {
  return new Promise((resolve, reject) => {
    http.get(url, { agent: false, headers: { Authorization: basic(auth) } }, (res) => { res.resume(); res.on('end', resolve) }).on('error', reject)
  })
}

async function run ({ forwarding, stores, rate, seconds, verb, engine, offset }) {
  const machineBefore = await sampleMachineLoad()
  const store = await startStore(engine)
  const target = forwarding ? await startTarget('webhook') : null
  let lrs = null
  let i = offset
  try {
    lrs = await startLrs({ store, env: { LRS_SECRETS_KEY: crypto.randomBytes(32).toString('base64'), LRS_FORWARD_FORBIDDEN_HOSTS: '' } })
    // each store with its own credential (the load's "hosts"), and with forwarding its forwarder
    const hosts = []
    for (let n = 0; n < stores; n++) {
      const id = `org-${n}`
      await admin(lrs, 'POST', '/admin/stores', { id })
      const made = await admin(lrs, 'POST', '/admin/credentials', { scopes: ['all', 'admin'], store: id })
      const auth = { user: made.key, password: made.secret }
      hosts.push({ name: id, url: lrs.url, auth })
      if (target) await admin(lrs, 'POST', '/admin/forwarders', { name: 'warehouse', target: { kind: 'webhook', url: target.url, secrets: [target.secret] }, filter: { verb: ADL + verb } }, auth)
    }
    // each credential's secret checked once by every worker before the
    // load, with forwarders or not (a first check is a scrypt: 200 of them
    // during the load cost the runs without forwarders 429s)
    for (let k = 0; k < 4; k++) for (const h of hosts) await freshGet(lrs.url + '/admin/forwarders', h.auth)
    await sleep(3000) // every worker has them within LRS_CREDENTIAL_POLL_MS
    const verbOf = new Map()
    const load = steadyLoad({
      hosts,
      admin: ADMIN,
      rate,
      perRequest: PER_REQUEST,
      maxInFlight: 256,
      statement: () => {
        const s = { id: crypto.randomUUID(), ...scormStatement(i++) }
        verbOf.set(s.id, s.verb.id)
        return s
      }
    })
    const started = Date.now()
    await sleep(seconds * 1000)
    await load.stop()
    const elapsed = (Date.now() - started) / 1000
    const out = { forwarding, stores, offered: rate, acknowledged: load.acknowledged.size, acknowledgedPerSecond: Math.round(load.acknowledged.size / elapsed), statuses: countBy(load.answers.map((a) => a.status)), machineBefore }
    if (target) {
      const wanted = [...load.acknowledged].filter((id) => verbOf.get(id) === ADL + verb)
      await target.expect(wanted)
      const deadline = Date.now() + 120000
      while (Date.now() < deadline && await target.missing() > 0) await sleep(500)
      const report = await target.report()
      const lags = report.arrivals.map(([id, at]) => at - load.acknowledgedAt.get(id)).sort((a, b) => a - b)
      Object.assign(out, { forwarded: wanted.length, missing: wanted.length - report.arrivals.length, extraDeliveries: report.extraDeliveries, badSignatures: report.badSignatures, lagMs: { p50: percentile(lags, 0.5), p99: percentile(lags, 0.99), max: lags[lags.length - 1] } })
    }
    return out
  } finally {
    if (lrs) await lrs.stop()
    if (target) await target.stop()
    await store.stop()
  }
}

function countBy (values) {
  const out = {}
  for (const v of values) out[v] = (out[v] || 0) + 1
  return out
}

async function main () {
  const { values: args } = parseArgs({ options: { stores: { type: 'string', default: '100' }, rate: { type: 'string', default: '2000' }, seconds: { type: 'string', default: '20' }, verb: { type: 'string', default: 'completed' }, repetitions: { type: 'string', default: '3' }, out: { type: 'string' } } })
  const [stores, rate, seconds] = [Number(args.stores), Number(args.rate), Number(args.seconds)]
  const engine = process.env.BENCH_ENGINE || 'sqlite'
  const commit = (() => { try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim() } catch { return null } })()
  const runs = []
  for (let r = 0; r < Number(args.repetitions); r++) {
    for (const forwarding of [false, true]) {
      const result = await run({ forwarding, stores, rate, seconds, verb: args.verb, engine, offset: runs.length * rate * seconds * 2 })
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
    stores,
    rate,
    seconds,
    verb: args.verb,
    machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0].model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    data: `${describeProfile().text}, POSTs of ${PER_REQUEST}, spread over ${stores} stores`,
    median: {
      acknowledgedPerSecondOff: median(off.map((x) => x.acknowledgedPerSecond)),
      acknowledgedPerSecondOn: median(on.map((x) => x.acknowledgedPerSecond)),
      lagP50Ms: median(on.map((x) => x.lagMs.p50)),
      lagP99Ms: median(on.map((x) => x.lagMs.p99)),
      missing: on.reduce((n, x) => n + x.missing, 0),
      extraDeliveries: on.reduce((n, x) => n + x.extraDeliveries, 0),
      badSignatures: on.reduce((n, x) => n + x.badSignatures, 0)
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
  const rows = r.runs.map((x, n) => `| ${n + 1} | ${x.forwarding ? 'on' : 'off'} | ${x.acknowledgedPerSecond} | ${x.forwarding ? `${x.forwarded} | ${x.lagMs.p50} / ${x.lagMs.p99} / ${x.lagMs.max} | ${x.missing} / ${x.extraDeliveries} | ${x.badSignatures}` : '– | – | – | –'} | ${x.machineBefore ? x.machineBefore.load1 : '–'} |`).join('\n')
  return `# ${r.stores} filtered forwarders over ${r.stores} stores (issue 56)

\`node bench/many-forwarders.js --stores ${r.stores} --rate ${r.rate} --seconds ${r.seconds} --verb ${r.verb}\` (BENCH_ENGINE=${r.engine}), ${r.date}, commit ${r.commit || 'unknown'}.
Machine: ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memoryGiB} GiB, Node.js ${r.machine.node}; the LRS (PM2, a worker per core, the SQLite writer),
the webhook receiver (its own process, checking every signature) and the load generator share it. Data: ${r.data}. With forwarding, each
store has one webhook forwarder whose filter is the verb ${r.verb} (one statement in seven). Runs alternate off and on.

| run | forwarders | acknowledged/s (of ${r.rate} offered) | statements forwarded | lag ms P50 / P99 / max | missing / extra | bad signatures | load before |
|---|---|---|---|---|---|---|---|
${rows}

Medians: ${r.median.acknowledgedPerSecondOff} acknowledged/s without forwarders, ${r.median.acknowledgedPerSecondOn} with (${r.median.onOverOff} of it); lag P50 ${r.median.lagP50Ms} ms, P99 ${r.median.lagP99Ms} ms; ${r.median.missing} missing, ${r.median.extraDeliveries} extra, ${r.median.badSignatures} bad signatures in all.
`
}

main().catch((err) => { console.error(err); process.exit(1) })
