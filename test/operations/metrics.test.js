'use strict'

// GET /metrics: Prometheus text, cluster-wide whichever worker answers, for
// the admin scope only.

const test = require('node:test')
const assert = require('node:assert/strict')
const { startLrs, freshStore, dropStoreDatabase } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')
const { until } = require('../helpers/wait')
const { gate } = require('../helpers/gate')
const { loadConfig } = require('../../src/config')
const { createLogger } = require('../../src/logger')
const { openStorage } = require('../../src/storage')
const { createStoreLabels } = require('../../src/metrics/store-labels')

// The value of one sample ("name{labels}" as written, or a bare name), or 0.
function sample (text, name, labels = '') {
  const want = labels ? `${name}{${labels}}` : name
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue
    const space = line.lastIndexOf(' ')
    if (line.slice(0, space) === want) return Number(line.slice(space + 1))
  }
  return 0
}

async function scrape (lrs) {
  const res = await lrs.http('/metrics')
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  return res.text
}

test('counts from two workers add up in a scrape of either', async () => {
  const a = await startLrs()
  const b = await startLrs({ ...a.storeEnv })
  const post = (lrs, n) => lrs.client('/statements', { method: 'POST', body: Array.from({ length: n }, () => statement()) })
  for (let i = 0; i < 3; i++) assert.equal((await post(a, 10)).status, 200)
  for (let i = 0; i < 2; i++) assert.equal((await post(b, 7)).status, 200)
  assert.equal((await b.client('/statements', { auth: ['admin', 'wrong'] })).status, 401)
  assert.equal((await a.client('/statements?verb=http://example.com/v')).status, 200)

  // b publishes every LRS_METRICS_PUBLISH_MS; a merges what is published
  let text
  const merged = await until(async () => {
    text = await scrape(a)
    assert.ok(sample(text, 'lrs_statements_stored_total') <= 44, 'never more than was sent')
    // b's 401 came after its posts: a publish may fall between them
    return sample(text, 'lrs_statements_stored_total') === 44 && sample(text, 'lrs_auth_failures_total') === 1
  }, { within: 10000 })
  assert.ok(merged, `a's scrape counts ${sample(text, 'lrs_statements_stored_total')} of the 44 statements stored`)
  assert.equal(sample(text, 'lrs_http_requests_total', 'route="/xapi/statements",method="POST",status="200"'), 5)
  assert.equal(sample(text, 'lrs_auth_failures_total'), 1)
  assert.equal(sample(text, 'lrs_statement_query_duration_seconds_count', 'shape="verb"'), 1)
  assert.equal(sample(text, 'lrs_batch_statements_sum'), 44)
  assert.ok(sample(text, 'lrs_batch_write_duration_seconds_count') >= 2)
  assert.match(text, /^lrs_statements_in_flight 0$/m)
  // process metrics stay per worker
  const workers = new Set([...text.matchAll(/^process_cpu_user_seconds_total\{worker="([^"]+)"\}/gm)].map((m) => m[1]))
  assert.equal(workers.size, 2)
  // a stopped worker's counters are kept, so counters never go down
  await b.close()
  const after = await scrape(a)
  assert.equal(sample(after, 'lrs_statements_stored_total'), 44)
})

test('metrics need the admin scope; unknown paths share one route label', async () => {
  const lrs = await startLrs()
  assert.equal((await lrs.http('/metrics', { auth: null })).status, 401)
  assert.equal((await lrs.http('/no/such/path/' + Date.now())).status, 404)
  const text = await scrape(lrs)
  assert.equal(sample(text, 'lrs_http_requests_total', 'route="other",method="GET",status="404"'), 1)
  assert.ok(!text.includes('/no/such/path'))
})

test('forwarding outbox depth, age and dead letters per upstream', async () => {
  const lrs = await startLrs({ LRS_FORWARD_URLS: 'http://u:p@127.0.0.1:9/xapi' })
  assert.equal((await lrs.client('/statements', { method: 'POST', body: [statement(), statement()] })).status, 200)
  const text = await scrape(lrs)
  assert.equal(sample(text, 'lrs_forward_outbox_entries', 'upstream="127.0.0.1:9/xapi"'), 2)
  assert.ok(sample(text, 'lrs_forward_outbox_oldest_age_seconds', 'upstream="127.0.0.1:9/xapi"') >= 0)
  assert.equal(sample(text, 'lrs_forward_dead_letters', 'upstream="127.0.0.1:9/xapi"'), 0)
})

test('an idle worker leaves its published metrics as they are until it answers a request', async () => {
  const fs = require('node:fs')
  const path = require('node:path')
  const lrs = await startLrs({ LRS_METRICS_PUBLISH_MS: '100' })
  const dir = path.join(lrs.config.dataDir, 'metrics')
  const file = () => fs.existsSync(dir) && fs.readdirSync(dir).find((name) => /^worker-.*\.json$/.test(name))
  const written = () => JSON.parse(fs.readFileSync(path.join(dir, file()), 'utf8'))
  assert.ok(await until(file))
  // Four publish periods in which nothing was rewritten. (Every tenth
  // period the process metrics are, so a window may be spoiled by one.)
  const quiet = await until(async () => {
    const before = written().at
    await new Promise((resolve) => setTimeout(resolve, 400))
    return written().at === before
  }, { within: 5000 })
  assert.ok(quiet, 'the idle worker rewrote its metrics in every window of four periods')
  const requests = (snap) => snap.lrs.find((m) => m.name === 'lrs_http_requests_total').values
    .filter((v) => v.labels.route === '/xapi/about').reduce((n, v) => n + v.value, 0)
  const seen = requests(written())
  assert.equal((await lrs.client('/about')).status, 200)
  assert.ok(await until(() => requests(written()) === seen + 1, { within: 2000 }), 'the request was published within a few periods')
})

test('a metrics publish that fails leaves no temporary file behind', async () => {
  const fs = require('node:fs')
  const path = require('node:path')
  const lrs = await startLrs({ LRS_METRICS_PUBLISH_MS: '100' })
  const dir = path.join(lrs.config.dataDir, 'metrics')
  const published = () => fs.existsSync(dir) && fs.readdirSync(dir).find((name) => /^worker-.*\.json$/.test(name))
  assert.ok(await until(published))
  const own = published()
  // the published file replaced by a folder with something in it: every
  // publish now fails at its rename, as one on a full disk fails at its write
  fs.rmSync(path.join(dir, own))
  fs.mkdirSync(path.join(dir, own, 'blocker'), { recursive: true })
  await new Promise((resolve) => setTimeout(resolve, 1000))
  // A publish in flight at this moment has its temporary file for a few
  // milliseconds (CI once caught one), so only files older than half a
  // second count: a leak would have left about five of them by now.
  const now = Date.now()
  const left = fs.readdirSync(dir).filter((name) => name.endsWith('.tmp')).filter((name) => {
    const st = fs.statSync(path.join(dir, name), { throwIfNoEntry: false })
    return st && now - st.mtimeMs > 500
  })
  assert.deepEqual(left, [])
})

test('per store: statements stored and requests refused, labelled with the store\'s id', async () => {
  const lrs = await startLrs()
  assert.equal((await lrs.http('/admin/stores', { method: 'POST', body: { id: 'acme' } })).status, 201)
  const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: ['all'], store: 'acme' } })
  const acme = [made.json.key, made.json.secret]
  assert.equal((await lrs.client('/statements', { method: 'POST', auth: acme, body: [statement(), statement(), statement()] })).status, 200)
  assert.equal((await lrs.client('/statements', { method: 'POST', body: statement() })).status, 200)
  assert.equal((await lrs.client('/statements', { method: 'POST', auth: acme, body: { actor: 'not an agent' } })).status, 400)
  // the per-store counts land once the store's label is read (store-labels.js, a storage read of its own after the answer)
  let text
  await until(async () => sample((text = await scrape(lrs)), 'lrs_store_refusals_total', 'store="acme",reason="invalid"') === 1 && sample(text, 'lrs_store_statements_stored_total', 'store="acme"') === 3 && sample(text, 'lrs_store_statements_stored_total', 'store="default"') === 1)
  assert.equal(sample(text, 'lrs_store_statements_stored_total', 'store="acme"'), 3)
  assert.equal(sample(text, 'lrs_store_statements_stored_total', 'store="default"'), 1)
  assert.equal(sample(text, 'lrs_store_refusals_total', 'store="acme",reason="invalid"'), 1)
  assert.equal(sample(text, 'lrs_store_refusals_total', 'store="default",reason="invalid"'), 0)
})

test('a store made while the labels were being read is labelled with its id, not its number', async (t) => {
  const env = freshStore()
  const storage = openStorage(loadConfig({ ...env, LRS_LOG_LEVEL: 'silent' }), createLogger({ logLevel: 'silent' }))
  t.after(async () => { await storage.close(); await dropStoreDatabase(env) })
  await storage.ready
  // the first read (at start) answers only after the store is made, with
  // what it read before: a worker's start-up read slow on a loaded database
  const all = storage.stores.all.bind(storage.stores)
  const slow = gate()
  let reads = 0
  storage.stores.all = async () => {
    const first = ++reads === 1
    const found = await all()
    if (first) await slow.wait()
    return found
  }
  const labels = createStoreLabels(storage)
  await slow.reached
  assert.equal(await storage.stores.create({ id: 'acme', name: 'Acme' }), 'created')
  const acme = (await all()).find((s) => s.id === 'acme')
  const label = labels.labelOf(acme.number)
  slow.open()
  assert.equal(await label, 'acme')
  assert.equal(await labels.labelOf(0), 'default')
  assert.equal(await labels.labelOf(acme.number + 1000), String(acme.number + 1000), 'a number no store has keeps its number')
})
