'use strict'

// What authentication costs per request (issue 37): the same requests at
// BENCH_CONNECTIONS (64) connections with HTTP Basic, with a token of the
// LRS's own (POST /oauth/token) and with a token of an outside OpenID
// issuer (a minimal one served here: discovery document and JWKS, an
// RS256 token signed by this script), in alternating repetitions, the LRS
// started the README way (pm2-runtime, every core). The figure is the
// workers' CPU time per request (user + system, from /proc), and requests
// per second; medians of BENCH_REPEAT (3) repetitions of BENCH_DURATION
// (10) s each.
//
// Two requests: GET /xapi/statements?limit=1 on a store of BENCH_STATEMENTS
// (2,000) statements (a read as content makes it), and GET of a State
// document that does not exist (404: little but authentication).
//
//   node bench/auth-cost.js
//
// Writes bench/results/auth-cost-<date>.json and prints a table.

const http = require('node:http')
const crypto = require('node:crypto')
const jose = require('jose')
const autocannon = require('autocannon')
const { startLrs, cpuSeconds } = require('./lrs-process')
const { startStore } = require('./store')
const { median, saveResult } = require('./report')
const { freePort } = require('../tools/free-port')

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 64)
const DURATION = Number(process.env.BENCH_DURATION || 10)
const REPEAT = Number(process.env.BENCH_REPEAT || 3)
const STATEMENTS = Number(process.env.BENCH_STATEMENTS || 2000)
const AUDIENCE = 'https://lrs.bench.example/xapi'

const basic = (user, secret) => 'Basic ' + Buffer.from(`${user}:${secret}`).toString('base64')

// An OpenID issuer of the least kind: its discovery document and keys.
async function startIssuer () {
  const { privateKey, publicKey } = await jose.generateKeyPair('RS256')
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: 'bench-1', alg: 'RS256', use: 'sig' }
  const port = await freePort()
  const issuer = `http://127.0.0.1:${port}`
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json')
    if (req.url === '/.well-known/openid-configuration') return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks`, id_token_signing_alg_values_supported: ['RS256'] }))
    if (req.url === '/jwks') return res.end(JSON.stringify({ keys: [jwk] }))
    res.statusCode = 404
    res.end('{}')
  })
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  const now = Math.floor(Date.now() / 1000)
  const token = await new jose.SignJWT({ scope: 'all', client_id: 'bench-client' })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench-1', typ: 'at+jwt' })
    .setIssuer(issuer).setAudience(AUDIENCE).setSubject('bench-client').setIssuedAt(now).setExpirationTime(now + 3600)
    .sign(privateKey)
  return { issuer, token, stop: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections() }) }
}

async function fill (url, auth) {
  for (let i = 0; i < STATEMENTS; i += 100) {
    const batch = Array.from({ length: Math.min(100, STATEMENTS - i) }, (_, j) => ({
      actor: { mbox: `mailto:learner-${(i + j) % 997}@bench.example` },
      verb: { id: 'http://adlnet.gov/expapi/verbs/experienced' },
      object: { id: `http://bench.example/activities/${(i + j) % 101}` }
    }))
    const res = await fetch(url + '/xapi/statements', { method: 'POST', headers: { Authorization: auth, 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' }, body: JSON.stringify(batch) })
    if (res.status !== 200) throw new Error(`fill: ${res.status} ${await res.text()}`)
  }
}

async function measure (lrs, path, authorization, duration = DURATION) {
  const pids = lrs.workerPids()
  const cpu = () => pids.reduce((s, pid) => s + cpuSeconds(pid), 0)
  const statuses = {}
  const before = cpu()
  const result = await autocannon({ url: lrs.url + path, connections: CONNECTIONS, duration, headers: { Authorization: authorization, 'X-Experience-API-Version': '1.0.3' } })
    .on('response', (client, status) => { statuses[status] = (statuses[status] || 0) + 1 })
  const cpuSec = cpu() - before
  const requests = result.requests.total
  return { requests, requestsPerSec: requests / duration, cpuMsPerRequest: (cpuSec * 1000) / requests, p99Ms: result.latency.p99, statuses }
}

// Each kind verified once on every worker (a new connection per request
// reaches each in turn) before anything is measured.
async function warm (url, authorization) {
  for (let i = 0; i < 20; i++) {
    const status = await new Promise((resolve, reject) => http.get(url, { agent: false, headers: { Authorization: authorization, 'X-Experience-API-Version': '1.0.3' } }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)) }).on('error', reject))
    if (status !== 200 && status !== 404) throw new Error(`warming ${url}: ${status}`)
  }
}

async function main () {
  const issuer = await startIssuer()
  const store = await startStore()
  const lrs = await startLrs({ store, env: { LRS_OIDC_ISSUERS: issuer.issuer, LRS_OIDC_AUDIENCE: AUDIENCE } })
  try {
    const admin = basic('bench', 'bench-secret')
    await fill(lrs.url, admin)
    const made = await (await fetch(lrs.url + '/admin/credentials', { method: 'POST', headers: { Authorization: admin, 'Content-Type': 'application/json' }, body: JSON.stringify({ key: 'bench-client', scopes: ['all'] }) })).json()
    const tokenRes = await fetch(lrs.url + '/oauth/token', { method: 'POST', headers: { Authorization: basic('bench-client', made.secret), 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })
    const lrsToken = (await tokenRes.json()).access_token
    const kinds = {
      basic: basic('bench-client', made.secret),
      'lrs token': `Bearer ${lrsToken}`,
      'oidc token': `Bearer ${issuer.token}`
    }
    const agent = encodeURIComponent(JSON.stringify({ mbox: 'mailto:nobody@bench.example' }))
    const paths = {
      'statements, limit 1': '/xapi/statements?limit=1',
      'state document, 404': `/xapi/activities/state?activityId=${encodeURIComponent('http://bench.example/a')}&agent=${agent}&stateId=${crypto.randomUUID()}`
    }
    const runs = []
    for (const [shape, path] of Object.entries(paths)) {
      for (const auth of Object.values(kinds)) {
        await warm(lrs.url + path, auth)
        await measure(lrs, path, auth, 3) // the JIT warmed: the first run of a shape was a third slower, whatever came first
      }
      for (let rep = 0; rep < REPEAT; rep++) {
        // alternating, and each repetition in another order
        const order = Object.keys(kinds)
        for (let i = 0; i < rep; i++) order.push(order.shift())
        for (const kind of order) {
          const r = await measure(lrs, path, kinds[kind])
          runs.push({ shape, kind, rep, ...r })
          process.stdout.write(`${shape} | ${kind} | rep ${rep}: ${r.requestsPerSec.toFixed(0)} req/s, ${r.cpuMsPerRequest.toFixed(3)} CPU ms/request, P99 ${r.p99Ms} ms ${JSON.stringify(r.statuses)}\n`)
        }
      }
    }
    const summary = []
    for (const shape of Object.keys(paths)) {
      for (const kind of Object.keys(kinds)) {
        const mine = runs.filter((r) => r.shape === shape && r.kind === kind)
        summary.push({ shape, kind, requestsPerSec: median(mine.map((r) => r.requestsPerSec)), cpuMsPerRequest: median(mine.map((r) => r.cpuMsPerRequest)), p99Ms: median(mine.map((r) => r.p99Ms)) })
      }
    }
    // The issuer's keys are already held: with the issuer gone, its token
    // (and any other it signed with those keys) still works.
    await issuer.stop()
    const outage = await measure(lrs, paths['statements, limit 1'], kinds['oidc token'], 3)
    process.stdout.write(`issuer stopped | oidc token: ${JSON.stringify(outage.statuses)}\n`)
    const out = { date: new Date().toISOString(), engine: store.engine, workers: lrs.workerPids().length, connections: CONNECTIONS, durationSec: DURATION, repeat: REPEAT, storeStatements: STATEMENTS, data: `${STATEMENTS} statements (997 learners, 101 activities, one verb): the data matters little here, the requests are the same for each kind`, summary, issuerStopped: { statuses: outage.statuses, requestsPerSec: outage.requestsPerSec }, runs }
    saveResult('auth-cost', out)
    process.stdout.write('\n| request | authentication | req/s | CPU ms/request | P99 ms |\n|---|---|---|---|---|\n')
    for (const s of summary) process.stdout.write(`| ${s.shape} | ${s.kind} | ${s.requestsPerSec.toFixed(0)} | ${s.cpuMsPerRequest.toFixed(3)} | ${s.p99Ms} |\n`)
  } finally {
    await lrs.stop()
    await store.stop()
    await issuer.stop().catch(() => {})
  }
}

main().catch((err) => {
  process.stderr.write(`auth cost run failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
