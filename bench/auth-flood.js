'use strict'

// A flood of wrong secrets for a known key, with a valid client measured
// alongside: the valid client's latency must not suffer (issue 10: P99 < 1 s).
// BENCH_VALID=cold: the valid client is another credential, never verified
// before the flood, on its own connections (a new one every
// BENCH_COLD_EVERY requests, so its verifications on each worker happen
// during the flood) from another address (127.0.0.2): what a valid client
// meets when it starts while someone else floods.
// BENCH_VALID=nat: the valid client's header verified on one connection
// (one worker) before the flood; during it, one request every 100 ms, each
// on a new connection (PM2 hands them to every worker), from the flood's
// own address (clients behind one NAT): issue 37's lockout.
//
//   node bench/auth-flood.js      (BENCH_CONNECTIONS=40 flooding connections, BENCH_DURATION=8 s)

const crypto = require('node:crypto')
const http = require('node:http')
const autocannon = require('autocannon')
const { startLrs } = require('./lrs-process')
const { startStore } = require('./store')
const { percentile, saveResult } = require('./report')

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 40)
const DURATION = Number(process.env.BENCH_DURATION || 8)
const COLD = process.env.BENCH_VALID === 'cold'
const NAT = process.env.BENCH_VALID === 'nat'
const COLD_EVERY = Number(process.env.BENCH_COLD_EVERY || 50)

const basic = (user, secret) => 'Basic ' + Buffer.from(`${user}:${secret}`).toString('base64')

async function validClient (url, until) {
  const times = []
  const statuses = {}
  while (Date.now() < until) {
    const started = process.hrtime.bigint()
    const res = await fetch(url + '/xapi/statements?limit=1', { headers: { Authorization: basic('bench', 'bench-secret'), 'X-Experience-API-Version': '1.0.3' } })
    await res.arrayBuffer()
    times.push(Number(process.hrtime.bigint() - started) / 1e6)
    statuses[res.status] = (statuses[res.status] || 0) + 1
  }
  return { times, statuses }
}

// The cold client: keep-alive connections from 127.0.0.2, a new one (and
// so, in turn, each worker) every COLD_EVERY requests.
async function coldClient (url, auth, until) {
  const times = []
  const statuses = {}
  let agent = null
  for (let i = 0; Date.now() < until; i++) {
    if (i % COLD_EVERY === 0) {
      if (agent) agent.destroy()
      agent = new http.Agent({ keepAlive: true, maxSockets: 1, localAddress: '127.0.0.2' })
    }
    const started = process.hrtime.bigint()
    const status = await new Promise((resolve, reject) => {
      http.get(url + '/xapi/statements?limit=1', { agent, headers: { Authorization: auth, 'X-Experience-API-Version': '1.0.3' } }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
      }).on('error', reject)
    })
    times.push(Number(process.hrtime.bigint() - started) / 1e6)
    statuses[status] = (statuses[status] || 0) + 1
  }
  agent.destroy()
  return { times, statuses }
}

// The NAT client: a new connection per request, a request every 100 ms.
async function natClient (url, until) {
  const times = []
  const statuses = {}
  while (Date.now() < until) {
    const started = process.hrtime.bigint()
    const status = await new Promise((resolve, reject) => {
      http.get(url + '/xapi/statements?limit=1', { agent: false, headers: { Authorization: basic('bench', 'bench-secret'), 'X-Experience-API-Version': '1.0.3' } }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
      }).on('error', reject)
    })
    times.push(Number(process.hrtime.bigint() - started) / 1e6)
    statuses[status] = (statuses[status] || 0) + 1
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { times, statuses }
}

async function createCredential (url, key) {
  const res = await fetch(url + '/admin/credentials', { method: 'POST', headers: { Authorization: basic('bench', 'bench-secret'), 'Content-Type': 'application/json' }, body: JSON.stringify({ key, scopes: ['all'] }) })
  if (res.status !== 201) throw new Error(`creating a credential: ${res.status}`)
  return basic(key, (await res.json()).secret)
}

async function main () {
  const store = await startStore()
  const lrs = await startLrs({ store })
  // Warm: the valid credential is verified once per worker before the
  // flood (nat: on one keep-alive connection, by one worker).
  if (NAT) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    for (let i = 0; i < 6; i++) {
      await new Promise((resolve, reject) => http.get(lrs.url + '/xapi/statements?limit=1', { agent, headers: { Authorization: basic('bench', 'bench-secret'), 'X-Experience-API-Version': '1.0.3' } }, (res) => { res.resume(); res.on('end', resolve) }).on('error', reject))
    }
    agent.destroy()
  } else {
    for (let i = 0; i < 10; i++) await validClient(lrs.url, Date.now() + 1)
  }
  const coldAuth = COLD ? await createCredential(lrs.url, 'bench-cold') : null
  const statusCounts = {}
  const flood = autocannon({
    url: lrs.url + '/xapi/statements',
    connections: CONNECTIONS,
    duration: DURATION,
    requests: [{ setupRequest: (req) => ({ ...req, headers: { 'X-Experience-API-Version': '1.0.3', Authorization: basic('bench', crypto.randomUUID()) } }) }]
  }).on('response', (client, statusCode) => { statusCounts[statusCode] = (statusCounts[statusCode] || 0) + 1 })
  const until = Date.now() + DURATION * 1000
  const valid = COLD ? await coldClient(lrs.url, coldAuth, until) : NAT ? await natClient(lrs.url, until) : await validClient(lrs.url, until)
  await flood
  await lrs.stop()
  await store.stop()
  const out = {
    date: new Date().toISOString(),
    engine: store.engine,
    floodConnections: CONNECTIONS,
    validClientKind: COLD ? `cold (new connection every ${COLD_EVERY} requests, from 127.0.0.2)` : NAT ? 'nat (verified by one worker; then a new connection every 100 ms from the flood\'s address)' : 'warm',
    durationSec: DURATION,
    floodStatusCounts: statusCounts,
    validClient: { requests: valid.times.length, statuses: valid.statuses, p50Ms: percentile(valid.times, 50), p99Ms: percentile(valid.times, 99), maxMs: percentile(valid.times, 100) }
  }
  process.stdout.write(JSON.stringify(out, null, 2) + '\n')
  saveResult('auth-flood', out)
  const ok = out.validClient.p99Ms < 1000 && Object.keys(valid.statuses).every((s) => s === '200')
  process.stdout.write(`${ok ? 'PASS' : 'FAIL'}: valid client ${out.validClient.requests} requests, P50 ${out.validClient.p50Ms} ms, P99 ${out.validClient.p99Ms} ms; flood ${JSON.stringify(statusCounts)}\n`)
  process.exit(ok ? 0 : 1)
}

main().catch((err) => {
  process.stderr.write(`auth flood run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
