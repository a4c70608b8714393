'use strict'

// What compressing answers costs and saves (src/http/compression.js,
// src/http/static-files.js):
//  1. per page: a real GET /xapi/statements page of 100 campus-profile
//     statements (and one statement, and a 1 KiB answer, for the threshold),
//     compressed in this process with each codec and level, BENCH_REPS
//     times: median CPU ms per page and bytes before/after. Swagger UI's
//     bundle once per codec (what a worker spends once per start).
//  2. end to end: the same page fetched by autocannon from the LRS (PM2,
//     one worker, the README way) with no Accept-Encoding, with gzip and
//     with br: requests/s, latency, bytes on the wire, and the worker's CPU
//     per request (from /proc).
// Prints a table; writes bench/results/compression-*.json.
//
//   node bench/compression.js                      (~1.5 min)
//   BENCH_REPS=20 BENCH_SECONDS=5 node bench/compression.js   (quick)

const fs = require('node:fs')
const os = require('node:os')
const zlib = require('node:zlib')
const autocannon = require('autocannon')
const { statementBodies, describeProfile } = require('./statement-generator')
const { startLrs, cpuSeconds } = require('./lrs-process')
const { startStore } = require('./store')
const { median, saveResult } = require('./report')

const REPS = Number(process.env.BENCH_REPS || 100)
const SECONDS = Number(process.env.BENCH_SECONDS || 10)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 4)
const AUTH = 'Basic ' + Buffer.from('bench:bench-secret').toString('base64')
const HEADERS = { Authorization: AUTH, 'X-Experience-API-Version': '1.0.3' }

const br = (quality) => (body) => zlib.brotliCompressSync(body, {
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: quality,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
    [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length
  }
})
const gzip = (level) => (body) => zlib.gzipSync(body, { level })
// The LRS's choices first (compression.js: br 4, gzip 6 per answer;
// static-files.js: br 9, gzip 9 once per file), then neighbours.
const CODECS = {
  'br 4 (answers)': br(4),
  'gzip 6 (answers)': gzip(6),
  'br 5': br(5),
  'br 6': br(6),
  'gzip 1': gzip(1),
  'br 9 (static files)': br(9),
  'gzip 9 (static files)': gzip(9),
  'br 11': br(11)
}

function cpuMs (fn) {
  const before = process.cpuUsage()
  const out = fn()
  const used = process.cpuUsage(before)
  return { ms: (used.user + used.system) / 1000, out }
}

function timeCodecs (body, reps) {
  const rows = {}
  for (const [name, fn] of Object.entries(CODECS)) {
    const n = name === 'br 11' ? Math.min(reps, 10) : reps
    const times = []
    let bytes = 0
    for (let i = 0; i < n; i++) {
      const { ms, out } = cpuMs(() => fn(body))
      times.push(ms)
      bytes = out.length
    }
    rows[name] = { cpuMsMedian: Math.round(median(times) * 1000) / 1000, bytes, ratio: Math.round((bytes / body.length) * 1000) / 1000, reps: n }
  }
  return rows
}

async function get (url, encoding) {
  const res = await fetch(url, { headers: { ...HEADERS, ...(encoding ? { 'Accept-Encoding': encoding } : {}) } })
  return { res, body: Buffer.from(await res.arrayBuffer()) }
}

async function endToEnd (lrs, path) {
  const [pid] = lrs.workerPids()
  const rows = {}
  for (const encoding of [null, 'gzip', 'br']) {
    const headers = { ...HEADERS, ...(encoding ? { 'Accept-Encoding': encoding } : {}) }
    await autocannon({ url: lrs.url + path, connections: CONNECTIONS, amount: 200, headers }) // warm-up
    const cpuBefore = cpuSeconds(pid)
    const result = await autocannon({ url: lrs.url + path, connections: CONNECTIONS, duration: SECONDS, headers })
    const cpu = cpuSeconds(pid) - cpuBefore
    const requests = result.requests.total
    rows[encoding || 'identity'] = {
      requestsPerSecond: Math.round(result.requests.average),
      latencyMsP50: result.latency.p50,
      latencyMsP99: result.latency.p99,
      bytesPerResponse: Math.round(result.throughput.total / Math.max(1, requests)),
      workerCpuMsPerRequest: Math.round((cpu * 1000 / Math.max(1, requests)) * 100) / 100,
      non2xx: result.non2xx,
      errors: result.errors
    }
    process.stderr.write(`  ${encoding || 'identity'}: ${JSON.stringify(rows[encoding || 'identity'])}\n`)
  }
  return rows
}

async function main () {
  const store = await startStore('sqlite')
  const lrs = await startLrs({ store, env: { LRS_INSTANCES: '1', LRS_MAX_WAIT_MS: '60000' } })
  try {
    const nextBody = statementBodies(100)
    const post = await fetch(lrs.url + '/xapi/statements', { method: 'POST', headers: { ...HEADERS, 'Content-Type': 'application/json' }, body: nextBody() })
    if (post.status !== 200) throw new Error(`POST /xapi/statements answered ${post.status}: ${await post.text()}`)
    const ids = await post.json()
    const pagePath = '/xapi/statements?limit=100'
    const page = (await get(lrs.url + pagePath)).body
    const one = (await get(lrs.url + `/xapi/statements?statementId=${ids[0]}`)).body
    const small = page.subarray(0, 1024)
    const bundle = fs.readFileSync(require.resolve('swagger-ui-dist/swagger-ui-bundle.js'))
    process.stderr.write(`page of 100: ${page.length} bytes; one statement: ${one.length} bytes\n`)
    const perPage = {
      'page of 100 statements': { bytes: page.length, codecs: timeCodecs(page, REPS) },
      'one statement': { bytes: one.length, codecs: timeCodecs(one, REPS) },
      '1 KiB answer': { bytes: small.length, codecs: timeCodecs(small, REPS) },
      'swagger-ui-bundle.js': { bytes: bundle.length, codecs: timeCodecs(bundle, 3) }
    }
    process.stderr.write('end to end, GET ' + pagePath + '\n')
    const e2e = await endToEnd(lrs, pagePath)
    const result = {
      date: new Date().toISOString(),
      machine: { cpus: os.cpus().length, model: os.cpus()[0].model, node: process.version, loadAverage: os.loadavg() },
      profile: describeProfile(),
      reps: REPS,
      endToEnd: { path: pagePath, seconds: SECONDS, connections: CONNECTIONS, workers: 1, rows: e2e },
      perPage
    }
    for (const [what, { bytes, codecs }] of Object.entries(perPage)) {
      console.log(`\n${what} (${bytes} bytes)`)
      console.log('| codec | CPU ms (median) | bytes | ratio |\n|---|---|---|---|')
      for (const [name, r] of Object.entries(codecs)) console.log(`| ${name} | ${r.cpuMsMedian} | ${r.bytes} | ${r.ratio} |`)
    }
    console.log(`\nend to end: GET ${pagePath}, ${CONNECTIONS} connections, ${SECONDS} s each, one worker`)
    console.log('| Accept-Encoding | req/s | P50 ms | P99 ms | bytes/response | worker CPU ms/request |\n|---|---|---|---|---|---|')
    for (const [name, r] of Object.entries(e2e)) console.log(`| ${name} | ${r.requestsPerSecond} | ${r.latencyMsP50} | ${r.latencyMsP99} | ${r.bytesPerResponse} | ${r.workerCpuMsPerRequest} |`)
    console.log('\n' + saveResult('compression', result))
  } finally {
    await lrs.stop()
    await store.stop()
  }
}

main().catch((err) => {
  console.error(err)
  process.exitCode = 1
})
