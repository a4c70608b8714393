'use strict'

// Stores (issue 36): ingest with statements spread over many stores, against
// the single-store rate, in the same run. Three LRSs (pm2, the README way),
// each on a fresh store, one for each kind of phase; `stores` stores are made
// in the third, each with a credential, through the admin API, and as many
// credentials of the second's default store. Then, alternating `pairs`
// times, the three kinds of phase, each `seconds` long with `connections`
// connections posting batches of `batch` (the other LRSs idle, their
// writers settled first):
//   one store            an LRS with its default store only, one credential
//   one store, N keys    an LRS with its default store only, its N
//                        credentials in turn (what authenticating many
//                        keys costs, stores aside)
//   one own store        an LRS with one store made beside its default
//                        one, every request in that store (what a store
//                        but the default one costs, the spread aside)
//   N stores             the LRS of N stores, each request in the store of
//                        its learner
// Every phase takes the next statements of one stream of the run's profile
// (a batch of 20 is one attempt of campus: one learner, one registration).
// In the spread phase a learner belongs to one store (learner mod N), as a
// tenant's learners are its own: the same statements, the same learners,
// split among the stores. Each LRS grows through the run by its own
// phases' statements (each phase is slower than the one before): the kinds
// run forwards, then backwards, so that each sees the same sizes.

const http = require('node:http')
const autocannon = require('autocannon')
const { statementBodies, attemptOf } = require('./statement-generator')
const { startLrs, cpuSeconds } = require('./lrs-process')
const { startStore } = require('./store')
const { percentile } = require('./report')
const { openStoreStorage, fillStore } = require('./fill-store')
const { SHAPES, shapeTimes, timeShape } = require('./statement-queries')

const ADMIN = 'bench:bench-secret'
// How often the store deletion's progress is asked for (storeDelete): the
// purge's end is known to within this.
const POLL_MS = 250
const basic = (auth) => 'Basic ' + Buffer.from(auth).toString('base64')

function request (url, { method = 'GET', auth = ADMIN, body, fresh = false, headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body)
    const req = http.request(url, {
      method,
      agent: fresh ? false : undefined,
      headers: { Authorization: basic(auth), 'X-Experience-API-Version': '1.0.3', ...(payload && { 'Content-Type': 'application/json' }), ...headers }
    }, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }))
    })
    req.on('error', reject)
    req.end(payload)
  })
}

async function storeIn (url, id) {
  const made = await request(url + '/admin/stores', { method: 'POST', body: { id } })
  if (made.status !== 201) throw new Error(`store ${id}: ${made.status} ${made.text}`)
}

async function credentialIn (url, store) {
  const res = await request(url + '/admin/credentials', { method: 'POST', body: { scopes: ['all'], store } })
  if (res.status !== 201) throw new Error(`credential in ${store}: ${res.status} ${res.text}`)
  const { key, secret } = JSON.parse(res.text)
  return `${key}:${secret}`
}

// Every credential verified by every worker before measuring (a first
// request costs a worker a scrypt verification): requests on new
// connections, which PM2 hands to the workers in turn.
async function warm (url, auths, workers) {
  for (const auth of auths) {
    for (let i = 0; i < workers * 2; i++) {
      const res = await request(url + '/xapi/statements?limit=1', { auth, fresh: true })
      if (res.status !== 200) throw new Error(`warm-up: ${res.status} ${res.text}`)
    }
  }
}

// `authOf(i)`: the credential of the batch that starts with statement i.
// `pids`: { workers, writer } (the writer's CPU: SQLite only).
// `overallRate`: requests/s over all connections (none: as fast as they go).
async function phase (url, { authOf, batch, connections, seconds, from, pids, overallRate }) {
  const nextBody = statementBodies(batch, { from })
  const cpu = () => ({ workers: pids.workers.reduce((sum, pid) => sum + cpuSeconds(pid), 0), writer: pids.writer ? cpuSeconds(pids.writer) : 0 })
  const before = cpu()
  let n = 0
  const result = await autocannon({
    url: url + '/xapi/statements',
    method: 'POST',
    connections,
    duration: seconds,
    ...(overallRate && { overallRate }),
    headers: { 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3' },
    requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, Authorization: basic(authOf(from + batch * n++)) }, body: nextBody() }) }]
  })
  const statements = result['2xx'] * batch
  const after = cpu()
  const perStatement = (seconds) => statements ? Math.round((seconds / statements) * 1e6) : null
  return {
    sent: n * batch,
    workersCpuMicrosPerStatement: perStatement(after.workers - before.workers),
    writerCpuMicrosPerStatement: pids.writer ? perStatement(after.writer - before.writer) : null,
    statementsPerSec: Math.round(statements / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    // which ones, where there were any ('503 x7')
    ...(result.non2xx && { non2xxStatuses: Object.entries(result.statusCodeStats || {}).filter(([code]) => !code.startsWith('2')).map(([code, { count }]) => `${code} x${count}`).join(', ') }),
    errors: result.errors + result.timeouts
  }
}

// Waits until no LRS of `others` is busy (a merge round after its last
// phase): their writers' CPU under 5 % over half a second, for at most 30 s.
async function settle (others) {
  const writers = others.map((o) => o.pids.writer).filter(Boolean)
  if (!writers.length) return
  const busy = () => writers.reduce((sum, pid) => sum + cpuSeconds(pid), 0)
  for (const until = Date.now() + 30000; Date.now() < until;) {
    const before = busy()
    await new Promise((resolve) => setTimeout(resolve, 500))
    if (busy() - before < 0.025) return
  }
}

async function storesIngest ({ engine, stores = 100, batch = 20, connections = 10, seconds = 10, pairs = 3, onPhase = () => {} }) {
  const started = []
  const startOne = async () => {
    const store = await startStore(engine)
    const lrs = await startLrs({ store }).catch(async (err) => { await store.stop(); throw err })
    const one = { store, lrs, url: lrs.url, pids: { workers: lrs.workerPids(), writer: lrs.writerPid() } }
    started.push(one)
    return one
  }
  try {
    // each kind its own LRS: the single-store rate is an LRS's that has no
    // other store (a default store beside others has a store term to write,
    // src/storage/sqlite/store-terms.js), and each LRS grows by its own kind's
    // statements only, so that the kinds see the same sizes
    const alone = await startOne()
    const keyed = await startOne()
    const owned = await startOne()
    const shared = await startOne()
    const workers = alone.pids.workers.length
    const single = await credentialIn(alone.url, 'default')
    await storeIn(owned.url, 'bench-own')
    const own = await credentialIn(owned.url, 'bench-own')
    const keys = []
    const spread = []
    for (let i = 0; i < stores; i++) {
      const id = `bench-${i}`
      await storeIn(shared.url, id)
      spread.push(await credentialIn(shared.url, id))
      keys.push(await credentialIn(keyed.url, 'default'))
    }
    await warm(alone.url, [single], workers)
    await warm(keyed.url, keys, workers)
    await warm(owned.url, [own], workers)
    await warm(shared.url, spread, workers)
    const learnerOf = (i) => attemptOf(i).learner
    const kinds = [
      ['one store', alone, () => single],
      [`one store, ${stores} keys`, keyed, (i) => keys[Math.floor(i / batch) % stores]],
      ['one own store', owned, () => own],
      [`${stores} stores`, shared, (i) => spread[learnerOf(i) % stores]]
    ]
    const phases = []
    let from = 0
    for (let pair = 0; pair < pairs; pair++) {
      // forwards, then backwards: no kind always runs right after another's
      for (const [kind, target, authOf] of pair % 2 ? [...kinds].reverse() : kinds) {
        await settle(started.filter((o) => o !== target))
        const r = { kind, pair: pair + 1, ...await phase(target.url, { authOf, batch, connections, seconds, from, pids: target.pids }) }
        from += r.sent
        phases.push(r)
        onPhase(r)
      }
    }
    const median = (kind, field) => percentile(phases.filter((p) => p.kind === kind).map((p) => p[field]), 50)
    const one = median(kinds[0][0], 'statementsPerSec')
    const withKeys = median(kinds[1][0], 'statementsPerSec')
    const ownOnly = median(kinds[2][0], 'statementsPerSec')
    const many = median(kinds[3][0], 'statementsPerSec')
    const ratio = (a, b) => b ? Math.round((a / b) * 1000) / 1000 : null
    return {
      phases,
      summary: {
        oneStoreStatementsPerSec: one,
        oneStoreManyKeysStatementsPerSec: withKeys,
        spreadStatementsPerSec: many,
        oneOwnStoreStatementsPerSec: ownOnly,
        spreadVsOne: ratio(many, one),
        manyKeysVsOne: ratio(withKeys, one),
        ownStoreVsOne: ratio(ownOnly, one),
        spreadVsOwnStore: ratio(many, ownOnly),
        oneStoreWriterCpuMicrosPerStatement: median(kinds[0][0], 'writerCpuMicrosPerStatement'),
        ownStoreWriterCpuMicrosPerStatement: median(kinds[2][0], 'writerCpuMicrosPerStatement'),
        spreadWriterCpuMicrosPerStatement: median(kinds[3][0], 'writerCpuMicrosPerStatement'),
        oneStoreWorkersCpuMicrosPerStatement: median(kinds[0][0], 'workersCpuMicrosPerStatement'),
        ownStoreWorkersCpuMicrosPerStatement: median(kinds[2][0], 'workersCpuMicrosPerStatement'),
        spreadWorkersCpuMicrosPerStatement: median(kinds[3][0], 'workersCpuMicrosPerStatement'),
        oneStoreP99Ms: median(kinds[0][0], 'p99Ms'),
        spreadP99Ms: median(kinds[3][0], 'p99Ms')
      }
    }
  } finally {
    for (const one of started) {
      await one.lrs.stop()
      await one.store.stop()
    }
  }
}

// A small store's queries beside a large store, against the same small
// store alone (issue 36: as fast, P99 <= 20 ms). The small store holds the
// generator's statements big .. big + small; beside: in a store of an LRS
// whose other store holds statements 0 .. big; alone: in an LRS of its own.
// Each query takes its values from a statement of the small store.
// `smallIn`: 'own', a store made after the default one (as a new tenant's
// would be), filled after the large one; 'default', the default store,
// filled before the large store is made (an LRS that had one organisation
// and takes a larger one in: its statements are older than every other
// store's, where an unfiltered walk of the statements table would step
// over all of theirs, store-terms.js).
// Both LRSs run at once, and in each of `rounds` rounds every shape is
// timed `queries` times in one, then in the other (the order turning each
// round): a P99 of 100 queries is about their second slowest, and one
// busy moment of the machine would otherwise fall on one setting only.
// Each shape's P50 and P99 are the medians over rounds; its P99 over all
// the rounds' queries and its worst round's P99 come with them.
async function storesQuery ({ engine, big = 1000000, small = 10000, queries = 40, rounds = 1, smallIn = 'own', onProgress = () => {} }) {
  const pick = () => big + Math.floor(Math.random() * small)
  const shapes = Object.entries(SHAPES).filter(([name]) => !name.startsWith('since') && !name.startsWith('until'))
  const smallId = smallIn === 'default' ? 'default' : 'small'
  const smallFill = [smallId, big, big + small]
  const bigFill = ['big', 0, big]
  const settings = [['beside', smallIn === 'default' ? [smallFill, bigFill] : [bigFill, smallFill]], ['alone', [smallFill]]]
  const running = {}
  try {
    for (const [setting, fills] of settings) {
      const store = await startStore(engine)
      running[setting] = { store }
      const storage = await openStoreStorage(store)
      try {
        for (const [id, from, to] of fills) {
          if (id !== 'default') await storage.stores.create({ id, name: id })
          const { number } = (await storage.stores.all()).find((x) => x.id === id)
          await fillStore(storage, from, to, { store: number, onProgress: (n) => onProgress(`  ${setting}: ${id} store filled to ${n - from}`) })
        }
      } finally {
        await storage.close()
      }
    }
    for (const [setting] of settings) {
      const one = running[setting]
      one.lrs = await startLrs({ store: one.store })
      one.auth = await credentialIn(one.lrs.url, smallId)
      await warm(one.lrs.url, [one.auth], one.lrs.workerPids().length)
      // and each shape's code, on the connection the timed queries take
      for (const [, query] of shapes) await timeShape(one.lrs.url, query, '', { queries: 5, pick, auth: one.auth })
    }
    // the fill's last index merges, which an LRS's writer finishes after its
    // start, are not the queries' to pay
    const writers = Object.values(running).map((one) => ({ pids: { writer: one.lrs.writerPid() } }))
    const settling = Date.now()
    await settle(writers)
    onProgress(`  writers settled after ${Date.now() - settling} ms`)
    const timed = [] // { round, setting, shape, p50Ms, p99Ms, rowsPerQuery, times }
    for (let round = 0; round < rounds; round++) {
      for (const [shape, query] of shapes) {
        const order = round % 2 ? ['alone', 'beside'] : ['beside', 'alone']
        for (const setting of order) {
          const { lrs, auth } = running[setting]
          const { times, rowsPerQuery } = await shapeTimes(lrs.url, query, '', { queries, pick, auth })
          const r = { round, setting, shape, p50Ms: percentile(times, 50), p99Ms: percentile(times, 99), rowsPerQuery, times }
          timed.push(r)
          onProgress(`  round ${round + 1}, ${setting}: ${shape}: P50 ${r.p50Ms} ms, P99 ${r.p99Ms} ms, ${Math.round(rowsPerQuery * 10) / 10} statements a page`)
        }
      }
    }
    const rows = []
    for (const [setting] of settings) {
      for (const [shape] of shapes) {
        const mine = timed.filter((t) => t.setting === setting && t.shape === shape)
        const median = (field) => percentile(mine.map((t) => t[field]), 50)
        const all = mine.flatMap((t) => t.times)
        rows.push({ setting, shape, p50Ms: median('p50Ms'), p99Ms: median('p99Ms'), pooledP99Ms: percentile(all, 99), worstRoundP99Ms: Math.max(...mine.map((t) => t.p99Ms)), rowsPerQuery: Math.round(median('rowsPerQuery') * 10) / 10 })
      }
    }
    // the small store's export (GET /admin/statements/export, the bootstrap credential in it)
    const exports = {}
    for (const [setting] of settings) {
      const started = performance.now()
      const exported = await request(running[setting].lrs.url + '/admin/statements/export', { headers: smallId === 'default' ? {} : { 'X-LRS-Store': smallId } })
      if (exported.status !== 200) throw new Error(`export: ${exported.status} ${exported.text.slice(0, 200)}`)
      exports[setting] = { ms: Math.round(performance.now() - started), statements: exported.text.split('\n').filter(Boolean).length }
      onProgress(`  ${setting}: export of the small store: ${exports[setting].statements} statements in ${exports[setting].ms} ms`)
    }
    const worst = (setting, field = 'p99Ms') => Math.max(...rows.filter((r) => r.setting === setting).map((r) => r[field]))
    return {
      rows,
      summary: {
        smallStoreWorstP99MsBeside: worst('beside'),
        smallStoreWorstP99MsAlone: worst('alone'),
        smallStoreWorstPooledP99MsBeside: worst('beside', 'pooledP99Ms'),
        smallStoreWorstPooledP99MsAlone: worst('alone', 'pooledP99Ms'),
        smallStoreExportMsBeside: exports.beside.ms,
        smallStoreExportMsAlone: exports.alone.ms
      }
    }
  } finally {
    for (const one of Object.values(running)) {
      if (one.lrs) await one.lrs.stop()
      await one.store.stop()
    }
  }
}

// The windows of a store deletion (storeDelete) by when they ran: each
// window { when, startMs, endMs } whose `when` is 'during the purge' and
// that overlapped the purge (purgeStartMs .. purgeEndMs) for less than
// half its length becomes 'as the purge ended': the loop starts a window
// while the purge has not been seen to end, which the poll sees up to a
// poll later, so the last such window can lie mostly after it and would
// make "during" read lower than it was. Such windows count in neither
// set. When no window overlapped half (a purge shorter than a window), the
// one that overlapped most is "during". Returns { during, baseline }.
function purgeWindows (windows, purgeStartMs, purgeEndMs) {
  const overlap = (w) => Math.max(0, Math.min(w.endMs, purgeEndMs) - Math.max(w.startMs, purgeStartMs))
  const running = windows.filter((w) => w.when === 'during the purge')
  const halfOrMore = running.filter((w) => overlap(w) >= (w.endMs - w.startMs) / 2)
  const during = halfOrMore.length ? halfOrMore : [...running].sort((a, b) => overlap(b) - overlap(a)).slice(0, 1)
  for (const w of running) if (!during.includes(w)) w.when = 'as the purge ended'
  return {
    during,
    baseline: windows.filter((w) => w.when === 'before' || w.when === 'after')
  }
}

// Deleting a large store while another store takes statements (issue 36:
// a store of 1 M deleted within 60 s, the other stores' P99 <= 2x their
// baseline meanwhile). The store to delete holds the generator's
// statements 0 .. big, the other one `other` more. The other store's
// ingest runs at a set rate (`rate` statements/s in batches of `batch`:
// a load the LRS keeps up with, so that its P99 is its latency, not a
// queue; at saturation a closed loop's latency is its share of a
// throughput that any background work lowers) in windows of `seconds`:
// `baselines` windows before the deletion, then windows until the
// deleted store is purged, then `baselines` after. The purge's time is
// from the DELETE's answer to the store's leaving GET /admin/stores'
// `deleting` (polled every POLL_MS), and to its last statement's going
// (statementsLeft 0).
async function storeDelete ({ engine, big = 1000000, other = 10000, rate = 1000, batch = 20, connections = 10, seconds = 5, baselines = 2, onProgress = () => {} }) {
  const store = await startStore(engine)
  try {
    const storage = await openStoreStorage(store)
    try {
      for (const [id, from, to] of [['big', 0, big], ['other', big, big + other]]) {
        await storage.stores.create({ id, name: id })
        const { number } = (await storage.stores.all()).find((x) => x.id === id)
        await fillStore(storage, from, to, { store: number, onProgress: (n) => onProgress(`  ${id} store filled to ${n - from}`) })
      }
    } finally {
      await storage.close()
    }
    const lrs = await startLrs({ store })
    try {
      const pids = { workers: lrs.workerPids(), writer: lrs.writerPid() }
      const auth = await credentialIn(lrs.url, 'other')
      await warm(lrs.url, [auth], pids.workers.length)
      let from = big + other
      const windows = []
      const window = async (when) => {
        const startMs = Date.now()
        const r = { when, ...await phase(lrs.url, { authOf: () => auth, batch, connections, seconds, from, pids, overallRate: rate / batch }), startMs, endMs: Date.now() }
        from += r.sent
        windows.push(r)
        onProgress(`  ${when}: ${r.statementsPerSec} statements/s, P50 ${r.p50Ms} ms, P99 ${r.p99Ms} ms, non-2xx ${r.non2xx}`)
      }
      for (let i = 0; i < baselines; i++) await window('before')
      const deleted = await request(lrs.url + '/admin/stores/big?confirm=big', { method: 'DELETE' })
      if (deleted.status !== 202) throw new Error(`delete: ${deleted.status} ${deleted.text}`)
      const started = Date.now()
      let statementsGoneMs = null
      let purgedMs = null
      const poll = (async () => {
        while (purgedMs === null) {
          const list = JSON.parse((await request(lrs.url + '/admin/stores')).text)
          const left = list.deleting.find((d) => d.id === 'big')
          if (!left) purgedMs = Date.now() - started
          else if (left.statementsLeft === 0 && statementsGoneMs === null) statementsGoneMs = Date.now() - started
          if (purgedMs === null) await new Promise((resolve) => setTimeout(resolve, POLL_MS))
        }
        if (statementsGoneMs === null) statementsGoneMs = purgedMs
        onProgress(`  purged: statements gone after ${(statementsGoneMs / 1000).toFixed(1)} s, store after ${(purgedMs / 1000).toFixed(1)} s`)
      })()
      while (purgedMs === null) await window('during the purge')
      await poll
      for (let i = 0; i < baselines; i++) await window('after')
      const { during, baseline } = purgeWindows(windows, started, started + purgedMs)
      const worst = (list) => Math.max(...list.map((w) => w.p99Ms))
      const median = (list, field) => percentile(list.map((w) => w[field]), 50)
      return {
        windows: windows.map(({ startMs, endMs, ...shown }) => shown), // (the times only placed them)
        summary: {
          deletedStatements: big,
          statementsGoneSeconds: Math.round(statementsGoneMs / 100) / 10,
          purgedSeconds: Math.round(purgedMs / 100) / 10,
          purgedStatementsPerSec: Math.round(big / (statementsGoneMs / 1000)),
          baselineP99Ms: median(baseline, 'p99Ms'),
          worstBaselineP99Ms: worst(baseline),
          duringPurgeWorstP99Ms: worst(during),
          duringPurgeMedianP99Ms: median(during, 'p99Ms'),
          baselineStatementsPerSec: median(baseline, 'statementsPerSec'),
          duringPurgeStatementsPerSec: median(during, 'statementsPerSec'),
          non2xx: windows.reduce((n, w) => n + w.non2xx, 0)
        }
      }
    } finally {
      await lrs.stop()
    }
  } finally {
    await store.stop()
  }
}

module.exports = { storesIngest, storesQuery, storeDelete, purgeWindows }
