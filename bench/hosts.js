'use strict'

// Several hosts (issue 55's figures): three LRS hosts of two workers, each
// in a network namespace of its own running `npm start`, on one FerretDB,
// every host forwarding to one upstream LRS that counts deliveries per
// statement id. Under a steady load spread over the hosts (clients that
// retry a failed connection on the next host and a 503/429 after its
// Retry-After, with the same statement ids):
//   kill     one host's whole process tree killed with SIGKILL mid-run (and
//            started again): acknowledged statements missing, the other
//            hosts' 5xx, the failed connections and when they happened
//   outage   FerretDB stopped for 10 s, then started on the same files:
//            acknowledged statements missing, 500s, the slowest answer, how
//            long after the database's return each host stored again
// then every stored statement's deliveries to the upstream: missing,
// delivered once, more than once (the kill makes at most the batches the
// dead host had leased be sent again).
//
//   node bench/hosts.js [--rate 500] [--seconds 10] [--without-forwarding] [--out <folder>]
//
// --without-forwarding: no upstream (on FerretDB, whose every document
// write costs ~12 ms, the outbox's writes take most of its capacity).
//
// Needs root (network namespaces) and FerretDB (npm run ferretdb). The
// statements are of the campus profile (bench/statement-generator.js).
// Writes results.json and README.md into --out (default
// bench/results/hosts-<date>).

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const http = require('node:http')
const { execFileSync } = require('node:child_process')
const { parseArgs } = require('node:util')
const { MongoClient } = require('mongodb')
const { startHosts, hostsAvailable } = require('../test/helpers/hosts')
const { steadyLoad, countAnswers } = require('../test/helpers/steady-load')
const crypto = require('node:crypto')
const { scormStatement } = require('./statement-generator')

const BATCH = 100 // statements a forwarding worker leases and posts at once (src/forwarding/forwarder.js)

function countingUpstream (address) {
  const deliveries = new Map()
  const extraAt = [] // each delivery after a statement's first: when, from which host's address, and its first's
  const firstFrom = new Map()
  const server = http.createServer((req, res) => {
    const chunks = []
    req.on('data', (c) => chunks.push(c))
    req.on('end', () => {
      const list = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      const from = req.socket.remoteAddress.replace(/^::ffff:/, '')
      for (const s of list) {
        if (deliveries.has(s.id)) extraAt.push({ at: Date.now(), from, first: firstFrom.get(s.id) })
        else firstFrom.set(s.id, { at: Date.now(), from })
        deliveries.set(s.id, (deliveries.get(s.id) || 0) + 1)
      }
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify(list.map((s) => s.id)))
    })
  })
  return new Promise((resolve) => server.listen(0, address, () => resolve({
    deliveries,
    extraAt,
    url: `http://fwd:pw@${address}:${server.address().port}/xapi`,
    close: () => { server.closeAllConnections(); return new Promise((resolve) => server.close(resolve)) }
  })))
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
const percentile = (values, p) => {
  if (!values.length) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]
}

async function main () {
  const { values: args } = parseArgs({ options: { rate: { type: 'string', default: '500' }, seconds: { type: 'string', default: '10' }, out: { type: 'string' }, 'without-forwarding': { type: 'boolean', default: false } } })
  const rate = Number(args.rate)
  const seconds = Number(args.seconds)
  const available = hostsAvailable()
  if (!available.ok) throw new Error(`several hosts cannot run here: ${available.reason}`)
  const date = new Date().toISOString().slice(0, 10)
  const out = args.out || path.join(__dirname, 'results', `hosts-${date}`)
  const commit = (() => { try { return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname }).toString().trim() } catch { return null } })()
  let i = 0
  const statement = () => ({ ...scormStatement(i++, 'campus'), id: crypto.randomUUID() })

  let upstream
  const cluster = await startHosts({
    count: 3,
    workers: 2,
    env: { LRS_LOG_LEVEL: 'warn', LRS_FORWARD_TIMEOUT_MS: '5000' },
    async prepare ({ rootAddress }) {
      if (args['without-forwarding']) return {}
      upstream = await countingUpstream(rootAddress)
      return { env: { LRS_FORWARD_URLS: upstream.url } }
    }
  })
  const mongo = new MongoClient(cluster.db.uri, { serverSelectionTimeoutMS: 10000 })
  const results = { date: new Date().toISOString(), commit, rate, seconds, withForwarding: !args['without-forwarding'], machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0].model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version }, data: 'campus profile (100,000 learners, a registration per attempt), POSTs of 5 statements', hosts: '3 hosts × 2 workers (PM2, npm start), each in a network namespace; one FerretDB 1.24 (SQLite backend)' }
  try {
    const [, h2] = cluster.hosts
    const storedIds = async () => new Set((await mongo.db(cluster.db.name).collection('statements').find({ body: { $exists: true } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id))

    // kill: one host lost under load
    process.stdout.write(`kill: ${rate} statements/s for ${seconds} s, h2 killed, ${seconds} s more\n`)
    let load = steadyLoad({ hosts: cluster.hosts, admin: cluster.admin, rate, statement })
    await sleep(seconds * 1000)
    const killedAt = Date.now()
    await h2.kill()
    await sleep(seconds * 1000)
    await load.stop()
    const restartedIn = Date.now()
    await h2.start()
    let stored = await storedIds()
    const connectionFailures = load.answers.filter((a) => a.status === 'connection')
    results.kill = {
      acknowledged: load.acknowledged.size,
      missing: [...load.acknowledged].filter((id) => !stored.has(id)).length,
      answersBefore: countAnswers(load.answers, { to: killedAt }),
      answersAfterByHost: Object.fromEntries(cluster.hosts.map((h) => [h.name, countAnswers(load.answers, { from: killedAt, host: h.name })])),
      otherHosts5xx: load.answers.filter((a) => a.at >= killedAt && a.host !== 'h2' && typeof a.status === 'number' && a.status >= 500).length,
      otherHosts5xxSample: load.answers.filter((a) => a.at >= killedAt && a.host !== 'h2' && typeof a.status === 'number' && a.status >= 500).slice(0, 5).map((a) => ({ host: a.host, sentMsAfterKill: a.at - killedAt, ms: a.ms, message: a.message })),
      connectionFailures: connectionFailures.length,
      connectionFailuresOnlyToKilledHost: connectionFailures.every((a) => a.host === 'h2'),
      firstAndLastFailedConnectionMsAfterKill: connectionFailures.length ? [Math.min(...connectionFailures.map((a) => a.at + a.ms)) - killedAt, Math.max(...connectionFailures.map((a) => a.at + a.ms)) - killedAt] : null,
      writeP99Ms: percentile(load.answers.filter((a) => a.status === 200).map((a) => a.ms), 0.99),
      rejoinedInMs: Date.now() - restartedIn,
      skippedSends: load.skipped()
    }
    process.stdout.write(`  ${JSON.stringify(results.kill)}\n`)

    // outage: the database stopped for 10 s
    process.stdout.write(`outage: ${rate} statements/s, FerretDB stopped 10 s\n`)
    load = steadyLoad({ hosts: cluster.hosts, admin: cluster.admin, rate, statement })
    await sleep(seconds * 1000)
    const stoppedAt = Date.now()
    await cluster.db.stop()
    await sleep(10000)
    await cluster.db.start()
    const backAt = Date.now()
    // a host serves again once it answers a write 200 after the return
    // (a write sent before it and held until then counts: it was stored)
    const recovery = await Promise.all(cluster.hosts.map(async (h) => {
      for (const deadline = Date.now() + 30000; Date.now() < deadline; await sleep(20)) {
        const done = load.answers.filter((a) => a.host === h.name && a.status === 200 && a.at + a.ms >= backAt).map((a) => a.at + a.ms)
        if (done.length) return Math.min(...done) - backAt
      }
      return null
    }))
    await sleep(seconds * 1000)
    await load.stop()
    stored = await storedIds()
    results.outage = {
      acknowledged: load.acknowledged.size,
      missing: [...load.acknowledged].filter((id) => !stored.has(id)).length,
      answersWhileDown: countAnswers(load.answers, { from: stoppedAt, to: backAt }),
      answersAfterReturn: countAnswers(load.answers, { from: backAt }),
      status500: load.answers.filter((a) => a.status === 500).length,
      timeouts: load.answers.filter((a) => a.status === 'timeout').length,
      slowestAnswerMs: Math.max(...load.answers.map((a) => a.ms)),
      firstStoredAfterReturnMsByHost: Object.fromEntries(cluster.hosts.map((h, i) => [h.name, recovery[i]])),
      skippedSends: load.skipped()
    }
    process.stdout.write(`  ${JSON.stringify(results.outage)}\n`)

    // forwarding: every stored statement's deliveries
    if (upstream) {
      process.stdout.write('forwarding: waiting for the upstream to have every stored statement\n')
      const all = [...stored].filter((id) => !/^s\d+\|/.test(id))
      const deadline = Date.now() + 300000
      while (Date.now() < deadline && all.some((id) => !upstream.deliveries.has(id))) await sleep(500)
      await sleep(5000) // late re-sends, if any
      const times = all.map((id) => upstream.deliveries.get(id) || 0)
      results.forwarding = {
        stored: all.length,
        missing: times.filter((n) => n === 0).length,
        once: times.filter((n) => n === 1).length,
        moreThanOnce: times.filter((n) => n > 1).length,
        extraDeliveries: times.reduce((sum, n) => sum + Math.max(0, n - 1), 0),
        extraDeliveriesByPhase: {
          beforeTheKill: upstream.extraAt.filter((e) => e.at < killedAt).length,
          killToOutage: upstream.extraAt.filter((e) => e.at >= killedAt && e.at < stoppedAt).length,
          outageAndAfter: upstream.extraAt.filter((e) => e.at >= stoppedAt).length
        },
        // whether a statement came again from the host that sent it first
        // (a removal the database did not take) or from another (a lease
        // that ran out), and when, in seconds from the database's return
        extraDeliveriesFromTheSameHost: upstream.extraAt.filter((e) => e.first && e.first.from === e.from).length,
        extraDeliverySecondsAfterTheReturn: [...new Set(upstream.extraAt.map((e) => Math.round((e.at - backAt) / 1000)))].sort((a, b) => a - b),
        firstDeliverySecondsAfterTheReturnOfThoseSentAgain: [...new Set(upstream.extraAt.filter((e) => e.first).map((e) => Math.round((e.first.at - backAt) / 1000)))].sort((a, b) => a - b),
        boundFromTheKill: 2 * BATCH,
        boundFromTheOutage: 6 * BATCH
      }
      process.stdout.write(`  ${JSON.stringify(results.forwarding)}\n`)
    }
  } finally {
    await mongo.close().catch(() => {})
    await cluster.close()
    if (upstream) await upstream.close()
  }

  fs.mkdirSync(out, { recursive: true })
  fs.writeFileSync(path.join(out, 'results.json'), JSON.stringify(results, null, 2) + '\n')
  fs.writeFileSync(path.join(out, 'README.md'), report(results))
  process.stdout.write(`written: ${out}/README.md\n`)
}

function report (r) {
  const k = r.kill
  const o = r.outage
  const f = r.forwarding
  const forwarding = f ? `
## Forwarding: every stored statement of the run at the upstream

| figure | value |
|---|---|
| statements stored | ${f.stored} |
| not delivered | **${f.missing}** |
| delivered once | ${f.once} |
| delivered more than once | ${f.moreThanOnce} (${f.extraDeliveries} extra deliveries${f.extraDeliveriesByPhase ? `: ${f.extraDeliveriesByPhase.beforeTheKill} before the kill, ${f.extraDeliveriesByPhase.killToOutage} from the kill to the outage, ${f.extraDeliveriesByPhase.outageAndAfter} from the outage on` : ''}; at-least-once allows the batches delivered but not yet removed from the outbox when it happened: up to ${f.boundFromTheKill} for the kill, the dead host's two workers' leases, and up to ${f.boundFromTheOutage} for the outage, every worker's, whose removal the database did not take) |
` : '\nRun without forwarding (`--without-forwarding`).\n'
  return `# Several hosts: a host killed, the database stopped (issue 55)

\`node bench/hosts.js --rate ${r.rate} --seconds ${r.seconds}${r.withForwarding === false ? " --without-forwarding" : ""}\`, ${r.date}, commit ${r.commit || 'unknown'}.
Machine: ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memoryGiB} GiB, Node.js ${r.machine.node}; the hosts, FerretDB,
the upstream and the load generator all share it. ${r.hosts}. Data: ${r.data}. The load's clients
retry a failed connection at once on the next host and a 503/429 after its Retry-After, with the same statements;
like a load balancer, they send nothing to a host whose connection failed until its /health/ready answers 200.

## A host killed under ${r.rate} statements/s

| figure | value |
|---|---|
| statements acknowledged | ${k.acknowledged} |
| acknowledged and not stored | **${k.missing}** |
| answers of the other hosts after the kill | ${JSON.stringify(k.answersAfterByHost.h1)} (h1), ${JSON.stringify(k.answersAfterByHost.h3)} (h3) |
| 5xx from the other hosts | **${k.otherHosts5xx}** |
| failed connections (all to the killed host: ${k.connectionFailuresOnlyToKilledHost}) | ${k.connectionFailures}, ending ${k.firstAndLastFailedConnectionMsAfterKill ? k.firstAndLastFailedConnectionMsAfterKill.join(' to ') + ' ms after the kill' : '–'} |
| write P99 (200s) | ${k.writeP99Ms} ms |
| the killed host started again and ready in | ${k.rejoinedInMs} ms |

## The database stopped for 10 s under ${r.rate} statements/s

| figure | value |
|---|---|
| statements acknowledged | ${o.acknowledged} |
| acknowledged and not stored | **${o.missing}** |
| answers while it was down | ${JSON.stringify(o.answersWhileDown)} |
| answers after its return | ${JSON.stringify(o.answersAfterReturn)} |
| 500s | **${o.status500}** |
| requests that hung (client timeout 30 s) | ${o.timeouts} |
| slowest answer | ${o.slowestAnswerMs} ms |
| first statement stored after the return, per host | ${Object.entries(o.firstStoredAfterReturnMsByHost).map(([h, ms]) => `${h} ${ms} ms`).join(', ')} |

${forwarding}`
}

main().catch((err) => {
  process.stderr.write(`bench hosts failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
