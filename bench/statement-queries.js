'use strict'

// GET /statements as clients query it: the query shapes, each from a random
// statement of the generator's population, timed over HTTP; and the
// background ingest they are timed under (open loop, batches of 20).
// read-path.js, the scale scenario (scale.js) and kept-store-queries.js use them.

const { fork } = require('node:child_process')
const http = require('node:http')
const autocannon = require('autocannon')
const { scormStatement } = require('./statement-generator')
const { percentile } = require('./report')

const INGEST_BATCH = 20
const AUTH = 'Basic ' + Buffer.from('bench:bench-secret').toString('base64')

// Query shapes, each from a random statement of the generator's population.
const SHAPES = {
  'no filter': () => '',
  agent: (s) => `agent=${enc(JSON.stringify({ account: s.actor.account }))}`,
  'agent, related_agents': (s) => `agent=${enc(JSON.stringify({ account: s.actor.account }))}&related_agents=true`,
  verb: (s) => `verb=${enc(s.verb.id)}`,
  activity: (s) => `activity=${enc(s.object.id)}`,
  'activity (course), related_activities': (s) => `activity=${enc(s.context.contextActivities.grouping[0].id)}&related_activities=true`,
  registration: (s) => `registration=${s.context.registration}`,
  'completion check: registration, verb, course': (s) => `registration=${s.context.registration}&verb=${enc('http://adlnet.gov/expapi/verbs/completed')}&activity=${enc(s.context.contextActivities.grouping[0].id)}&related_activities=true`,
  'agent, verb': (s) => `agent=${enc(JSON.stringify({ account: s.actor.account }))}&verb=${enc(s.verb.id)}`,
  'since the last 10 s, ascending': () => `since=${enc(new Date(Date.now() - 10000).toISOString())}&ascending=true`,
  'until an hour ago': () => `until=${enc(new Date(Date.now() - 3600000).toISOString())}`
}

function enc (v) {
  return encodeURIComponent(v)
}

// One GET on a kept-alive connection, timed from the request's start to the
// answer's last byte, as autocannon times the other scenarios' requests.
// What the client then does with the answer (parsing 200 KB of JSON for a
// page of 100) is left out: with fetch and res.json() in the timed span,
// undici's own work and the parse's garbage collections, about 2 ms a
// query on the 2-core VM and part of the slowest ones, counted as the
// LRS's latency (measured against a single-process LRS: P50 6.0 to the
// last byte against 8.2 ms with the parse; node:http 4.0).
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 })
function timedGet (url, headers) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    http.get(url, { agent: keepAlive, headers }, (res) => {
      const chunks = []
      res.on('data', (chunk) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }))
    }).on('error', reject)
  })
}

// `limit`: '' for the server's page size (100), or e.g. '&limit=10'.
// `pick()`: the number of the generator's statement a query's values come
// from; `auth`: 'key:secret' (the bench's admin by default). Returns each
// query's ms and the statements a page held on average.
async function shapeTimes (url, shape, limit, { queries = 40, pick = () => Math.floor(Math.random() * 1e6), auth = null } = {}) {
  const times = []
  let rows = 0
  const authorization = auth ? 'Basic ' + Buffer.from(auth).toString('base64') : AUTH
  for (let q = 0; q < queries; q++) {
    const s = scormStatement(pick())
    const res = await timedGet(`${url}/xapi/statements?${shape(s)}${limit}`, { Authorization: authorization, 'X-Experience-API-Version': '1.0.3' })
    if (res.status !== 200) throw new Error(`${res.status} ${res.text.slice(0, 300)}`)
    times.push(res.ms)
    rows += JSON.parse(res.text).statements.length
  }
  return { times, rowsPerQuery: rows / queries }
}

// shapeTimes as the figures reports keep.
async function timeShape (url, shape, limit, options) {
  const { times, rowsPerQuery } = await shapeTimes(url, shape, limit, options)
  return { p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), maxMs: percentile(times, 100), rowsPerQuery }
}

// The background ingest, in a process of its own: in the process that
// timed the queries, autocannon's building of bodies and reading of
// answers took turns on the event loop that timed them, and counted in
// their latency. stop() resolves with autocannon's figures.
function backgroundIngest (url, { rate = 1000 } = {}) {
  const child = fork(__filename, ['--ingest', url, String(rate)], { stdio: 'inherit' })
  // it does not keep this process alive (a run that fails ends, and it with it), but while it is stopped
  child.unref()
  child.channel.unref()
  const done = new Promise((resolve, reject) => {
    child.once('message', resolve)
    child.once('exit', (code) => reject(new Error(`the background ingest exited with ${code}`)))
  })
  return {
    stop () {
      child.ref()
      child.channel.ref()
      child.send('stop')
      return done
    }
  }
}

function ingestAt (url, rate) {
  let i = 0
  return autocannon({
    url: url + '/xapi/statements',
    method: 'POST',
    connections: 10,
    overallRate: rate / INGEST_BATCH,
    duration: 3600,
    headers: { 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3', Authorization: AUTH },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify(Array.from({ length: INGEST_BATCH }, () => scormStatement(i++))) }) }]
  })
}


// Every shape, `queries` times each, under background ingest at `rate`:
// pages of 100 (the server's page size: what clients see), and pages of 2,
// the same number of rows at every size (a learner or a registration has
// ten times the statements at 10 M as at 1 M, so a page of 100 holds more
// of them, and the growth of the page hides the query's own).
async function timeQueries (url, { queries, rate }) {
  const ingest = backgroundIngest(url, { rate })
  const headers = { Authorization: AUTH, 'X-Experience-API-Version': '1.0.3' }
  // warm-up, not counted: every shape a few times (each worker)
  for (const shape of Object.values(SHAPES)) for (let w = 0; w < 4; w++) await timedGet(`${url}/xapi/statements?${shape(scormStatement(w))}`, headers)
  const shapes = {}
  const small = {}
  for (const [name, shape] of Object.entries(SHAPES)) {
    shapes[name] = await timeShape(url, shape, '', { queries })
    small[name] = await timeShape(url, shape, '&limit=2', { queries })
  }
  await ingest.stop()
  return { shapes, small }
}

if (require.main === module && process.argv[2] === '--ingest') {
  const run = ingestAt(process.argv[3], Number(process.argv[4]))
  process.once('message', async () => {
    run.stop()
    const r = await run
    process.send({ '2xx': r['2xx'], duration: r.duration, non2xx: r.non2xx, latency: { p99: r.latency.p99 } }, () => process.exit(0))
  })
  process.on('disconnect', () => process.exit(0)) // the timing process is gone
}

module.exports = { SHAPES, shapeTimes, timeShape, timeQueries, backgroundIngest, INGEST_BATCH, AUTH }
