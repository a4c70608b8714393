'use strict'

// Forwarding's cost and lag (issue 56): one LRS (npm start: PM2, a worker
// per core) ingesting a steady `--rate` of statements/s for `--seconds`,
// with forwarding off and on, alternated `--repetitions` times. Per run:
// statements acknowledged per second (of the rate offered), and with
// forwarding the lag of each statement, from its acknowledgement to its
// arrival at the target (P50, P99, max), every acknowledged statement's
// deliveries (missing, extra).
//
// `--target lrs` (the default): `--upstreams` upstream LRSs in
// LRS_FORWARD_URLS, each answering at once. `--target webhook`: as many
// webhook receivers, each made a forwarder with POST /admin/forwarders
// (kind webhook, a signing secret of the bench's); every delivery's
// signature is checked (Standard Webhooks), and deliveries are counted per
// webhook-id (the idempotency key) too. Every target runs in a child
// process of its own (bench/forward-receiver.js), off the load generator's
// event loop, and notes arrival times there; they come back at the end.
//
// `--outage S`: forwarding on only; in the middle of the run every target
// stops listening (connections refused) for S seconds, then listens again
// on the same port. Reported: the ingest rate before, during and after the
// outage, what is missing once the queue has drained (within `--wait`
// seconds), extra deliveries, and the time from the target's return until
// the last statement acknowledged before it arrived (the queue drained).
//
// The machine may be shared: each run first waits (at most `--quiet`
// seconds) until other people's processes take under 10 % of its CPU, and
// reports the CPU busy while the load ran, ours and others'.
//
//   node bench/forwarding.js [--rate 2000] [--seconds 20] [--upstreams 1] [--target lrs|webhook]
//                            [--outage 0] [--wait 120|300] [--quiet 180] [--repetitions 3] [--out <folder>]
//
// BENCH_ENGINE picks the engine (sqlite; ferretdb needs `npm run
// ferretdb`). On a tree others edit meanwhile, run it from a copy of a
// commit (git archive HEAD | tar -x -C <dir>, node_modules linked, this
// file and forward-receiver.js copied in) with BENCH_CODE_COMMIT=<commit>:
// every run then measures the same code. Statements of the campus profile (bench/statement-generator.js:
// 100,000 learners, a registration per attempt), POSTs of 10 statements.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { parseArgs } = require('node:util')
const { execFileSync } = require('node:child_process')
const { startStore } = require('./store')
const { startLrs } = require('./lrs-process')
const { sampleMachineLoad, scenarioLoad } = require('./machine-load')
const { startTarget } = require('./forward-target')
const { scormStatement, describeProfile } = require('./statement-generator')
const { steadyLoad } = require('../test/helpers/steady-load')

const PER_REQUEST = 10
const ADMIN = { user: 'bench', password: 'bench-secret' }

// A target in its own process (forward-receiver.js), driven over IPC.
// A webhook forwarder for `target`, made the way a store's admin makes one.
async function makeWebhookForwarder (lrs, target, n) {
  const res = await fetch(lrs.url + '/admin/forwarders', {
    method: 'POST',
    headers: { Authorization: 'Basic ' + Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64'), 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: `bench-webhook-${n}`, target: { kind: 'webhook', url: target.url, secrets: [target.secret] } })
  })
  const text = await res.text()
  if (res.status !== 201) throw new Error(`POST /admin/forwarders answered ${res.status}: ${text}`)
  const made = JSON.parse(text)
  return { id: made.id, batchSize: made.batchSize, retry: made.retry }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// The machine is shared (others run tests on it): CPU time, in clock
// ticks, of every process (/proc/<pid>/stat: ppid, utime + stime), and of
// the machine (/proc/stat: busy, total).
function processTicks () {
  const out = new Map() // pid -> { ppid, ticks }
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const fields = fs.readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ')
      out.set(Number(name), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) })
    } catch {}
  }
  return out
}
function machineTicks () {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number)
  const total = f.reduce((a, b) => a + b, 0)
  return { total, busy: total - f[3] - f[4] }
}
const isOurs = (procs, pid) => { for (let p = pid, n = 0; p > 1 && n < 64; n++) { if (p === process.pid) return true; p = (procs.get(p) || {}).ppid } return false }
// Over a window: the machine's CPU busy (percent of all cores), the share
// of it that is this bench's processes (the load generator, the LRS, its
// targets) and the share that is everybody else's. Our processes live
// through a window; others' that start and end within it are counted, as
// the machine's busy less ours.
function cpuWindow () {
  const m0 = machineTicks()
  const p0 = processTicks()
  return () => {
    const m1 = machineTicks()
    const p1 = processTicks()
    let ours = 0
    for (const [pid, { ticks }] of p1) if (isOurs(p1, pid)) ours += ticks - ((p0.get(pid) || {}).ticks || 0)
    const total = m1.total - m0.total
    const pct = (x) => total > 0 ? Math.round(x / total * 1000) / 10 : null
    return { busyPercent: pct(m1.busy - m0.busy), oursPercent: pct(ours), othersPercent: pct(Math.max(0, m1.busy - m0.busy - ours)) }
  }
}
// Waits (at most `maxS` seconds) until the others' share of the machine
// over 5 s is under `percent`; what it found.
async function quietMachine ({ maxS, percent = 10 }) {
  const started = Date.now()
  for (;;) {
    const window = cpuWindow()
    await sleep(5000)
    const found = window()
    if (found.othersPercent < percent || Date.now() - started > maxS * 1000) return { ...found, waitedS: Math.round((Date.now() - started) / 1000) }
  }
}
const percentile = (sorted, p) => sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : null
const median = (values) => { const s = values.filter((v) => v !== null && v !== undefined).sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)] : null }
const lagSummary = (lags) => { const s = [...lags].sort((a, b) => a - b); return { p50: percentile(s, 0.5), p99: percentile(s, 0.99), max: s.length ? s[s.length - 1] : null, n: s.length } }

// An LRS that never got ready is left running by startLrs (pm2-runtime
// restarting its workers): this process's own pm2-runtime children are
// stopped, by pid.
async function stopOwnPm2 () {
  const procs = processTicks()
  const mine = [...procs].filter(([pid, p]) => p.ppid === process.pid && (() => { try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('pm2-runtime') } catch { return false } })()).map(([pid]) => pid)
  for (const pid of mine) {
    try { process.kill(pid, 'SIGINT') } catch {}
    for (let n = 0; n < 60; n++) {
      try { process.kill(pid, 0) } catch { break }
      await sleep(500)
    }
    try { process.kill(pid, 'SIGKILL') } catch {}
  }
}

// The code a run starts the LRS from: HEAD and the files of src/ that
// differ from it (others commit and edit while a long run goes on); or,
// for a copy of a commit made with git archive and run outside the
// repository, BENCH_CODE_COMMIT.
function codeNow () {
  const git = (...a) => { try { return execFileSync('git', a, { encoding: 'utf8', cwd: path.join(__dirname, '..') }).trim() } catch { return '' } }
  // a copy of a commit (git archive) run outside the repository says which
  if (process.env.BENCH_CODE_COMMIT) return { commit: process.env.BENCH_CODE_COMMIT, changedInSrc: [], copy: path.join(__dirname, '..') }
  return { commit: git('rev-parse', '--short', 'HEAD') || null, changedInSrc: [...git('diff', '--name-only', 'HEAD', '--', 'src').split('\n'), ...git('ls-files', '--others', '--exclude-standard', 'src').split('\n')].filter(Boolean) }
}

async function run ({ forwarding, rate, seconds, engine, offset, upstreams, target, outage, waitSeconds, quietS }) {
  const quiet = quietS ? await quietMachine({ maxS: quietS }) : null
  const machineBefore = await sampleMachineLoad()
  const code = codeNow()
  const store = await startStore(engine)
  const targets = []
  let lrs = null
  let i = offset
  const sharesOf = scenarioLoad()
  try {
    for (let n = 0; forwarding && n < upstreams; n++) targets.push(await startTarget(target))
    const env = { LRS_SECRETS_KEY: crypto.randomBytes(32).toString('base64'), LRS_FORWARD_FORBIDDEN_HOSTS: '' }
    if (target === 'lrs' && targets.length) env.LRS_FORWARD_URLS = targets.map((u) => u.url).join(',')
    lrs = await startLrs({ store, env }).catch(async (err) => { await stopOwnPm2(); throw err })
    const forwarders = []
    if (target === 'webhook' && targets.length) {
      for (const [n, t] of targets.entries()) forwarders.push(await makeWebhookForwarder(lrs, t, n + 1))
      await sleep(3000) // every worker has it within LRS_CREDENTIAL_POLL_MS (500 ms)
    }
    const load = steadyLoad({ hosts: [{ name: 'lrs', url: lrs.url }], admin: ADMIN, rate, perRequest: PER_REQUEST, maxInFlight: 256, statement: () => ({ id: crypto.randomUUID(), ...scormStatement(i++) }) })
    const cpu = cpuWindow()
    const started = Date.now()
    let downAt = null
    let upAt = null
    if (outage) {
      await sleep((seconds - outage) / 2 * 1000)
      downAt = Math.max(...await Promise.all(targets.map((t) => t.down())))
      process.stderr.write(`targets down at +${((downAt - started) / 1000).toFixed(1)} s\n`)
      await sleep(outage * 1000)
      upAt = Math.max(...await Promise.all(targets.map((t) => t.up())))
      process.stderr.write(`targets up at +${((upAt - started) / 1000).toFixed(1)} s\n`)
      await sleep(Math.max(0, started + seconds * 1000 - Date.now()))
    } else {
      await sleep(seconds * 1000)
    }
    const stoppedAt = Date.now()
    const cpuDuring = cpu()
    await load.stop()
    const elapsed = (Date.now() - started) / 1000
    const out = {
      forwarding,
      target: forwarding ? target : null,
      startedAt: new Date(started).toISOString(),
      code,
      offered: rate,
      acknowledged: load.acknowledged.size,
      acknowledgedPerSecond: Math.round(load.acknowledged.size / elapsed),
      statuses: countBy(load.answers.map((a) => a.status))
    }
    if (targets.length) {
      const ids = [...load.acknowledged]
      await Promise.all(targets.map((t) => t.expect(ids)))
      const deadline = Date.now() + waitSeconds * 1000
      let missing = Infinity
      while (Date.now() < deadline) {
        missing = (await Promise.all(targets.map((t) => t.missing()))).reduce((a, b) => a + b, 0)
        if (!missing) break
        await sleep(500)
      }
      out.waitedForDeliveryS = +((Date.now() - stoppedAt) / 1000).toFixed(1)
      const reports = await Promise.all(targets.map((t) => t.report()))
      const ackAt = load.acknowledgedAt
      const arrivalsOf = reports.map((r) => new Map(r.arrivals))
      const lags = arrivalsOf.flatMap((a) => [...a].map(([id, t]) => t - ackAt.get(id)))
      const sum = (field) => reports.reduce((n, r) => n + (r[field] || 0), 0)
      Object.assign(out, {
        upstreams: targets.length,
        ...(forwarders.length && { forwarders: { batchSize: forwarders[0].batchSize, retry: forwarders[0].retry } }),
        missing: reports.reduce((n, r) => n + ids.length - r.arrivals.length, 0),
        extraDeliveries: sum('extraDeliveries'),
        // arrived though no answer acknowledged them (a POST that timed out but was stored)
        arrivedUnacknowledged: reports.reduce((n, r) => n + r.arrived - r.arrivals.length, 0),
        requestsReceived: sum('requests'),
        lagMs: lagSummary(lags)
      })
      if (target === 'webhook') {
        Object.assign(out, {
          badSignatures: sum('badSignatures'),
          staleTimestamps: sum('staleTimestamps'),
          webhookIds: sum('webhookIds'),
          webhookIdsDeliveredMoreThanOnce: sum('webhookIdsDeliveredMoreThanOnce'),
          maxDeliveriesPerWebhookId: Math.max(...reports.map((r) => r.maxDeliveriesPerWebhookId)),
          extraUnderNewWebhookId: sum('extraUnderNewWebhookId')
        })
      }
      if (outage) out.outage = outageFigures({ started, stoppedAt, downAt, upAt, ackAt, ids, arrivalsOf })
    }
    out.machine = { quietBefore: quiet, loadBefore: machineBefore, during: sharesOf(), cpuDuringLoad: cpuDuring }
    return out
  } finally {
    if (lrs) await lrs.stop()
    for (const t of targets) await t.stop()
    await store.stop()
  }
}

// The ingest rate before, during and after the outage (from each
// statement's acknowledgement), when deliveries came again, and when the
// queue had drained: the last arrival of what was acknowledged before the
// target's return.
function outageFigures ({ started, stoppedAt, downAt, upAt, ackAt, ids, arrivalsOf }) {
  const window = (from, to) => {
    const n = ids.filter((id) => { const t = ackAt.get(id); return t >= from && t < to }).length
    return { seconds: +((to - from) / 1000).toFixed(1), acknowledged: n, perSecond: Math.round(n / ((to - from) / 1000)) }
  }
  const before = window(started, downAt)
  const during = window(downAt, upAt)
  const after = window(upAt, stoppedAt)
  const lagsBefore = []
  const lagsAfter = []
  const perTarget = arrivalsOf.map((arrivals) => {
    let firstAfterUp = Infinity
    let drainedAt = null
    let arrivedWhileDown = 0
    for (const [id, t] of arrivals) {
      if (t >= upAt && t < firstAfterUp) firstAfterUp = t
      if (t >= downAt && t < upAt) arrivedWhileDown++
      if (ackAt.get(id) < upAt && (drainedAt === null || t > drainedAt)) drainedAt = t
    }
    // the steady state before (what was acknowledged up to 5 s before the
    // outage), and what was acknowledged once the backlog was gone: the
    // usual lag again?
    const before = [...arrivals].filter(([id]) => ackAt.get(id) < downAt - 5000).map(([id, t]) => t - ackAt.get(id))
    const after = [...arrivals].filter(([id]) => ackAt.get(id) > drainedAt).map(([id, t]) => t - ackAt.get(id))
    // how fast the backlog went once deliveries came again
    const drained = drainedAt === null || firstAfterUp === Infinity ? 0 : [...arrivals.values()].filter((t) => t >= firstAfterUp && t <= drainedAt).length
    const drainPerSecond = drained && drainedAt > firstAfterUp ? Math.round(drained / ((drainedAt - firstAfterUp) / 1000)) : null
    lagsBefore.push(...before)
    lagsAfter.push(...after)
    const lagBefore = lagSummary(before)
    const lagAfter = lagSummary(after)
    return {
      arrivedWhileDown,
      firstDeliveryAfterReturnMs: firstAfterUp === Infinity ? null : firstAfterUp - upAt,
      drainedAfterReturnMs: drainedAt === null ? null : drainedAt - upAt,
      drainPerSecond,
      lagBeforeOutageMs: lagBefore,
      lagAfterDrainMs: lagAfter
    }
  })
  return {
    downAtS: +((downAt - started) / 1000).toFixed(1),
    upAtS: +((upAt - started) / 1000).toFixed(1),
    before,
    during,
    after,
    duringOverBefore: before.perSecond ? +(during.perSecond / before.perSecond).toFixed(3) : null,
    backlogAtReturn: ids.filter((id) => ackAt.get(id) >= downAt && ackAt.get(id) < upAt).length,
    arrivedWhileDown: perTarget.reduce((n, t) => n + t.arrivedWhileDown, 0),
    // the slowest target's
    firstDeliveryAfterReturnMs: Math.max(...perTarget.map((t) => t.firstDeliveryAfterReturnMs)),
    drainedAfterReturnMs: Math.max(...perTarget.map((t) => t.drainedAfterReturnMs)),
    drainPerSecond: Math.min(...perTarget.map((t) => t.drainPerSecond)),
    lagBeforeOutageMs: lagSummary(lagsBefore),
    lagAfterDrainMs: lagSummary(lagsAfter),
    perTarget
  }
}

function countBy (values) {
  const out = {}
  for (const v of values) out[v] = (out[v] || 0) + 1
  return out
}

async function main () {
  const { values: args } = parseArgs({
    options: {
      rate: { type: 'string', default: '2000' },
      seconds: { type: 'string', default: '20' },
      upstreams: { type: 'string', default: '1' },
      target: { type: 'string', default: 'lrs' },
      outage: { type: 'string', default: '0' },
      wait: { type: 'string' },
      quiet: { type: 'string', default: '180' },
      repetitions: { type: 'string', default: '3' },
      out: { type: 'string' }
    }
  })
  const rate = Number(args.rate)
  const seconds = Number(args.seconds)
  const outage = Number(args.outage)
  const target = args.target
  if (!['lrs', 'webhook'].includes(target)) throw new Error('--target is lrs or webhook')
  if (outage && outage >= seconds) throw new Error('--outage must be shorter than --seconds')
  const waitSeconds = Number(args.wait || (outage ? 300 : 120))
  const engine = process.env.BENCH_ENGINE || 'sqlite'
  const commit = codeNow().commit
  const modes = outage ? [true] : [false, true] // an outage is of forwarding
  const runs = []
  for (let r = 0; r < Number(args.repetitions); r++) {
    for (const forwarding of modes) {
      const result = await run({ forwarding, rate, seconds, engine, offset: runs.length * rate * seconds * 2, upstreams: Number(args.upstreams), target, outage, waitSeconds, quietS: Number(args.quiet) })
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
    target,
    outage,
    waitSeconds,
    quiet: Number(args.quiet),
    command: `${process.env.BENCH_CODE_COMMIT ? `BENCH_CODE_COMMIT=${process.env.BENCH_CODE_COMMIT} ` : ''}node bench/forwarding.js ${process.argv.slice(2).join(' ')}`,
    method: 'every target in a child process of its own (bench/forward-receiver.js)',
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
  if (outage) {
    Object.assign(results.median, {
      perSecondBeforeOutage: median(on.map((x) => x.outage.before.perSecond)),
      perSecondDuringOutage: median(on.map((x) => x.outage.during.perSecond)),
      duringOverBefore: median(on.map((x) => x.outage.duringOverBefore)),
      drainedAfterReturnMs: median(on.map((x) => x.outage.drainedAfterReturnMs))
    })
  }
  if (args.out) {
    fs.mkdirSync(args.out, { recursive: true })
    fs.writeFileSync(path.join(args.out, 'results.json'), JSON.stringify(results, null, 2) + '\n')
    fs.writeFileSync(path.join(args.out, 'README.md'), report(results))
  }
  process.stdout.write(`${JSON.stringify(results.median)}\n`)
}

const lagText = (l) => l && l.n !== 0 ? `${l.p50} / ${l.p99} / ${l.max}` : '–'
const loadText = (m) => m ? `${m.loadBefore.load1} / ${m.cpuDuringLoad.busyPercent} % (others ${m.cpuDuringLoad.othersPercent} %)` : '–'

// The code each run's LRS started from, where it is not the same for all.
function codeText (runs) {
  const of = (x) => x.code ? x.code.commit + (x.code.changedInSrc.length ? ` with uncommitted changes to ${x.code.changedInSrc.join(', ')}` : '') : 'unknown'
  const all = runs.map(of)
  if (all.every((c) => c === all[0])) return `The LRS of every run: ${all[0]}.`
  return `The LRS (others committed meanwhile): ${all.map((c, n) => `run ${n + 1} ${c}`).join('; ')}.`
}

function report (r) {
  const webhook = r.target === 'webhook'
  const what = webhook ? `webhook receiver${r.upstreams > 1 ? 's' : ''} (forwarders made with POST /admin/forwarders; each checks every delivery's signature)` : `upstream LRS${r.upstreams > 1 ? 's' : ''} (LRS_FORWARD_URLS; each answers at once)`
  const head = `# Forwarding: ${r.outage ? `a target down for ${r.outage} s` : 'ingest with and without, and the lag'} (issue 56)

\`${r.command}\` (BENCH_ENGINE=${r.engine}), ${r.date}, commit ${r.commit || 'unknown'}.
Machine: ${r.machine.cpus} × ${r.machine.cpuModel}, ${r.machine.memoryGiB} GiB, Node.js ${r.machine.node}; the LRS (PM2, a worker per core, the SQLite writer process),
${r.upstreams} ${what}, each in a child process of its own, and the load generator share it. Data: ${r.data}.
${codeText(r.runs)}
`
  if (r.outage) {
    const rows = r.runs.map((x, n) => {
      const o = x.outage
      return `| ${n + 1} | ${o.before.perSecond} / ${o.during.perSecond} / ${o.after.perSecond} (**${o.duringOverBefore}**) | ${o.downAtS}–${o.upAtS} s | ${o.backlogAtReturn} | ${o.firstDeliveryAfterReturnMs} | **${o.drainedAfterReturnMs}** (${o.drainPerSecond}/s) | **${x.missing} / ${x.extraDeliveries}**${webhook ? ` | ${x.badSignatures} | ${x.webhookIds} / ${x.webhookIdsDeliveredMoreThanOnce}` : ''} | ${lagText(o.lagBeforeOutageMs)} | ${lagText(o.lagAfterDrainMs)} | ${loadText(x.machine)} |`
    }).join('\n')
    return head + `
Every target stops listening (connections refused) for ${r.outage} s in the middle of the ${r.seconds} s run, then listens again on the same port; the bench then waits (at most ${r.waitSeconds} s) until every acknowledged statement arrived.

| run | acknowledged/s before / during / after the outage (during ÷ before) | outage | acknowledged while down | first delivery after the return, ms | queue drained after the return, ms (statements/s delivered meanwhile) | missing / extra | ${webhook ? 'bad signatures | webhook-ids / delivered more than once | ' : ''}lag ms P50 / P99 / max, acknowledged up to 5 s before the outage | acknowledged after the drain | load before / CPU busy (others') |
|---|---|---|---|---|---|---|${webhook ? '---|---|' : ''}---|---|---|
${rows}

Queue drained: the last arrival of a statement acknowledged before the target's return. Load: the 1-minute load average before the run / the machine's CPU busy while the load ran (of both cores), and in brackets the part of it that was other people's processes (the machine is shared; each run first waits, at most ${r.quiet} s, for others' share to fall under 10 %).
`
  }
  const rows = r.runs.map((x, n) => `| ${n + 1} | ${x.forwarding ? 'on' : 'off'} | ${x.acknowledgedPerSecond} | ${x.forwarding ? lagText(x.lagMs) : '–'} | ${x.forwarding ? `${x.missing} / ${x.extraDeliveries}` : '–'} |${webhook ? ` ${x.forwarding ? `${x.badSignatures} | ${x.webhookIds} / ${x.webhookIdsDeliveredMoreThanOnce}` : '– | –'} |` : ''} ${loadText(x.machine)} |`).join('\n')
  return head + `Runs alternate off and on.

| run | forwarding | acknowledged/s (of ${r.rate} offered) | lag ms P50 / P99 / max (acknowledgement to arrival, at every target) | missing / extra (all targets) |${webhook ? ' bad signatures | webhook-ids / delivered more than once |' : ''} load before / CPU busy (others') |
|---|---|---|---|---|${webhook ? '---|---|' : ''}---|
${rows}

Medians: ${r.median.acknowledgedPerSecondOff} acknowledged/s without forwarding, ${r.median.acknowledgedPerSecondOn} with (${r.median.onOverOff} of it); lag P50 ${r.median.lagP50Ms} ms, P99 ${r.median.lagP99Ms} ms.
Load: the 1-minute load average before the run / the machine's CPU busy while the load ran (of both cores), and in brackets the part of it that was other people's processes (the machine is shared; each run first waits, at most ${r.quiet} s, for others' share to fall under 10 %).
`
}

main().catch((err) => { console.error(err); process.exit(1) })
