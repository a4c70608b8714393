'use strict'

// The host's one SQLite writer process (LRS_SQLITE_WRITER=process, what
// `npm start` runs): workers send it their writes; it may stop gracefully
// (pm2 reload) or be killed, and no acknowledged statement may be lost.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawn } = require('node:child_process')
const { startLrs, freshStore, ENGINE, ADMIN, basic } = require('../helpers/lrs')
const { loadConfig } = require('../../src/config')
const { startServer } = require('../../src/server')
const { statement } = require('../helpers/statements')
const { connectWriter } = require('../../src/storage/sqlite/writer-client')
const { writerSocketPaths } = require('../../src/storage/sqlite/writer-socket')

const skip = ENGINE !== 'sqlite' && 'the writer process is the sqlite engine\'s'
const WRITER = path.join(__dirname, '../../src/storage/sqlite/writer-process.js')

// Resolves once the writer listens (it tells its parent, as it tells PM2).
function startWriter (dataDir, env = {}) {
  const child = spawn(process.execPath, [WRITER], { env: { ...process.env, LRS_DATA_DIR: dataDir, LRS_LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  let stderr = ''
  child.stderr.on('data', (d) => { stderr += d })
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stderr })))
  const ready = new Promise((resolve, reject) => {
    child.once('message', (m) => (m === 'ready' ? resolve() : reject(new Error(String(m)))))
    exited.then(({ code }) => reject(new Error(`writer exited with ${code}: ${stderr}`)))
  })
  return { child, ready, exited, stop: (signal = 'SIGTERM') => { if (child.exitCode === null && child.signalCode === null) child.kill(signal); return exited } }
}

// A client of the store's writer, as a worker has (writer-client.js),
// closed after the test.
async function writerClient (t, dataDir) {
  const silent = { info () {}, warn () {}, debug () {}, error () {}, fatal () {} }
  const client = connectWriter(writerSocketPaths(dataDir), silent, { waitMs: 5000 })
  t.after(() => client.close())
  await client.ready
  return client
}

async function twoWorkersOnOneWriter (t, env = {}) {
  const store = freshStore()
  const writer = startWriter(store.LRS_DATA_DIR)
  t.after(() => writer.stop('SIGKILL'))
  await writer.ready
  const settings = { ...store, LRS_SQLITE_WRITER: 'process', LRS_STATEMENTS_MAX_LIMIT: '10000', ...env }
  const a = await startLrs(settings)
  const b = await startLrs(settings)
  return { store, writer, workers: [a, b] }
}

// POSTs one statement at a time from `loops` loops through the workers in
// turn until `stop()` says so; returns every answer.
function postUntil (workers, { agent, loops = 6, stop }) {
  const answers = []
  const loop = async (k) => {
    for (let i = 0; !stop(); i++) {
      const s = statement({ id: crypto.randomUUID(), actor: agent })
      const res = await workers[(k + i) % workers.length].client('/statements', { method: 'POST', body: s })
      answers.push({ id: s.id, status: res.status, retryAfter: res.headers.get('retry-after'), code: res.json && res.json.code })
    }
  }
  return Promise.all(Array.from({ length: loops }, (_, k) => loop(k))).then(() => answers)
}

async function assertStored (worker, agent, ids) {
  for (const id of ids) assert.equal((await worker.client(`/statements?statementId=${id}`)).status, 200, `acknowledged statement ${id} is found by id`)
  const res = await worker.client(`/statements?agent=${encodeURIComponent(JSON.stringify(agent))}&limit=10000`)
  const found = new Set(res.json.statements.map((s) => s.id))
  for (const id of ids) assert.ok(found.has(id), `acknowledged statement ${id} is found by agent`)
}

const learner = () => ({ objectType: 'Agent', mbox: `mailto:writer-${crypto.randomUUID()}@example.com` })
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// Two workers on one writer, posting for half a second already;
// `nextWriter()` starts another writer on the store (what PM2 does),
// `stopLoad()` ends the load and resolves with every answer.
async function underLoad (t, env) {
  const setup = await twoWorkersOnOneWriter(t, env)
  const agent = learner()
  const started = []
  t.after(() => Promise.all(started.map((w) => w.stop('SIGKILL'))))
  let done = false
  const load = postUntil(setup.workers, { agent, stop: () => done })
  await sleep(500)
  return {
    ...setup,
    agent,
    nextWriter () {
      const next = startWriter(setup.store.LRS_DATA_DIR)
      started.push(next)
      return next
    },
    stopLoad () {
      done = true
      return load
    }
  }
}

test('two workers on one writer process: what one stores, the other reads', { skip }, async (t) => {
  const { workers: [a, b] } = await twoWorkersOnOneWriter(t)
  const agent = learner()
  const batch = Array.from({ length: 20 }, () => statement({ actor: agent }))
  const posted = await Promise.all([a, b].map((w) => w.client('/statements', { method: 'POST', body: batch.splice(0, 10) })))
  assert.deepEqual(posted.map((r) => r.status), [200, 200])
  await assertStored(b, agent, posted[0].json)
  await assertStored(a, agent, posted[1].json)
})

test('the writer reports what its transactions carried: statements, worker writes, time busy (op writerStats, for bench/writer-feed.js)', { skip }, async (t) => {
  const { store, workers: [a, b] } = await twoWorkersOnOneWriter(t)
  const client = await writerClient(t, store.LRS_DATA_DIR)
  const before = await client.call('writerStats')
  const agent = learner()
  const posted = await Promise.all([a, b].map((w) => w.client('/statements', { method: 'POST', body: Array.from({ length: 7 }, () => statement({ actor: agent })) })))
  assert.deepEqual(posted.map((r) => r.status), [200, 200])
  const after = await client.call('writerStats')
  assert.equal(after.statements - before.statements, 14)
  // (a restamp, when a write outlasts the consistency margin, is one more
  // operation and may be one more transaction)
  assert.ok(after.transactions - before.transactions >= 1 && after.transactions - before.transactions <= after.operations - before.operations, `14 statements in ${after.transactions - before.transactions} transactions`)
  assert.ok(after.operations - before.operations >= 2, 'each worker\'s write is an operation')
  assert.ok(after.busyMs >= before.busyMs && after.uptimeMs > before.uptimeMs)
  // the host's one writer keeps a page cache of 256 MiB (writer-loop.js), every other connection 64
  assert.equal(after.cacheKiB, 256 * 1024)
})

test('a worker sends the writer a term as its string once, and then its id (the writer answered it); another worker learns it for itself', { skip }, async (t) => {
  const { store, workers: [a, b] } = await twoWorkersOnOneWriter(t)
  const client = await writerClient(t, store.LRS_DATA_DIR)
  const strings = async () => (await client.call('writerStats')).termsAsStrings
  const actor = learner()
  const verb = { id: `http://example.com/verbs/${crypto.randomUUID()}` }
  const same = () => statement({ actor, verb, object: { objectType: 'Activity', id: 'http://example.com/a/learned' } })
  const post = async (worker, s) => assert.equal((await worker.client('/statements', { method: 'POST', body: s })).status, 200)
  let before = await strings()
  await post(a, same())
  const first = (await strings()) - before
  assert.ok(first >= 4, `verb, authority, actor and activity go as strings the first time (${first})`)
  before = await strings()
  await post(a, same())
  assert.equal((await strings()) - before, 0, 'then as ids')
  before = await strings()
  await post(b, same())
  assert.equal((await strings()) - before, first, 'the other worker sends them as strings once')
  before = await strings()
  await post(b, same())
  assert.equal((await strings()) - before, 0)
  // the statements are found by each of those terms
  const res = await a.client(`/statements?agent=${encodeURIComponent(JSON.stringify(actor))}&activity=${encodeURIComponent('http://example.com/a/learned')}&limit=10`)
  assert.equal(res.json.statements.length, 4)
})

test('a term made by a write that fails is forgotten with it: the next new term takes its id, and the failed term is made again when it comes back', { skip }, async (t) => {
  const store = freshStore()
  const writer = startWriter(store.LRS_DATA_DIR)
  t.after(() => writer.stop('SIGKILL'))
  await writer.ready
  const { packBody } = require('../../src/storage/sqlite/body-codec')
  const client = await writerClient(t, store.LRS_DATA_DIR)
  const record = (verb, body) => {
    const id = crypto.randomUUID()
    return { id, body: body === undefined ? packBody(JSON.stringify({ id })) : body, voiding: false, ref: null, timestampFromStored: false, attachments: [], terms: { registration: false, all: [verb, 'u:test-authority', 'a:test-actor'] } }
  }
  const store1 = (r) => client.call('storeBatch', [[r]], { storedMs: Date.now(), forwardTo: null, same: [[]] })
  const undone = 'v:http://example.com/verbs/undone'
  const other = 'v:http://example.com/verbs/other'
  // a record the statements table refuses (no body): its write fails after its terms were made
  await assert.rejects(store1(record(undone, null)), /was not stored/)
  const first = record(other)
  const again = record(undone)
  await store1(first)
  await store1(again)
  const Database = require('better-sqlite3')
  const db = new Database(path.join(store.LRS_DATA_DIR, 'lrs.sqlite'), { readonly: true })
  t.after(() => db.close())
  const { idToBlob } = require('../../src/storage/sqlite/ids')
  const verbOf = (r) => db.prepare('SELECT t.term FROM statements s JOIN terms t ON t.id = s.verb WHERE s.id = ?').pluck().get(idToBlob(r.id))
  assert.equal(verbOf(first), other)
  assert.equal(verbOf(again), undone, 'the statement with the failed write\'s verb is indexed under that verb, not under the term that took its old id')
})

test('a writer killed with SIGKILL under load: writes in flight get 503 with Retry-After, every acknowledged statement is stored, and writes resume with the next writer', { skip }, async (t) => {
  const { writer, workers, agent, nextWriter, stopLoad } = await underLoad(t)
  await writer.stop('SIGKILL')
  await sleep(300)
  await nextWriter().ready
  await sleep(700)
  const answers = await stopLoad()
  const other = answers.filter((a) => a.status !== 200 && a.status !== 503)
  assert.deepEqual(other, [], 'no answer but 200 and 503')
  for (const a of answers.filter((a) => a.status === 503)) {
    assert.equal(a.code, 'LRS_ERR_DATABASE_UNAVAILABLE')
    assert.ok(a.retryAfter, '503 carries Retry-After')
  }
  const acknowledged = answers.filter((a) => a.status === 200).map((a) => a.id)
  assert.ok(acknowledged.length > 20, `writes were acknowledged (${acknowledged.length})`)
  const after = answers.slice(-12)
  assert.ok(after.every((a) => a.status === 200), 'writes go on once the next writer is up')
  await assertStored(workers[1], agent, acknowledged)
})

test('a writer stopped gracefully under load (pm2 reload) fails no write, and the writes held meanwhile are not shed as overload', { skip }, async (t) => {
  // The next writer comes 800 ms later, past LRS_MAX_WAIT_MS: load
  // shedding would refuse the writes waiting for it if it took the gap for
  // overload.
  const { writer, workers, agent, nextWriter, stopLoad } = await underLoad(t, { LRS_MAX_WAIT_MS: '400' })
  assert.equal((await writer.stop('SIGTERM')).code, 0)
  const post = () => workers[0].client('/statements', { method: 'POST', body: statement({ actor: agent }) })
  const first = post()
  await sleep(600)
  const later = post() // while `first` has waited longer than LRS_MAX_WAIT_MS
  await sleep(200)
  const next = nextWriter()
  assert.deepEqual([(await first).status, (await later).status], [200, 200], 'writes arriving during the gap wait for the next writer')
  await next.ready
  await sleep(500)
  const answers = await stopLoad()
  assert.deepEqual(answers.filter((a) => a.status !== 200), [], 'every write is answered 200')
  await assertStored(workers[0], agent, answers.map((a) => a.id))
})

test('with no writer, a write waits LRS_WRITER_WAIT_MS and then gets 503 with Retry-After; readiness says down', { skip }, async (t) => {
  const { writer, workers: [a] } = await twoWorkersOnOneWriter(t, { LRS_WRITER_WAIT_MS: '300' })
  await writer.stop('SIGKILL')
  await sleep(100)
  const started = Date.now()
  const res = await a.client('/statements', { method: 'POST', body: statement() })
  assert.equal(res.status, 503)
  assert.equal(res.json.code, 'LRS_ERR_DATABASE_UNAVAILABLE')
  assert.ok(res.headers.get('retry-after'))
  assert.ok(Date.now() - started >= 250, 'it waited for a writer first')
  assert.equal((await a.http('/health/ready')).status, 503)
})

test('a data folder that cannot hold a socket (FUSE, bind mounts): the writer listens in the temporary folder, the workers find it there, and writes are stored', { skip }, async (t) => {
  const store = freshStore()
  // listen fails on that path (EADDRINUSE here; ENOSYS on FUSE), as it does where sockets cannot be made
  fs.mkdirSync(path.join(store.LRS_DATA_DIR, 'writer.sock'))
  const writer = startWriter(store.LRS_DATA_DIR)
  t.after(() => writer.stop('SIGKILL'))
  await writer.ready
  const [beside, temporary] = writerSocketPaths(store.LRS_DATA_DIR)
  assert.ok(fs.statSync(beside).isDirectory(), 'the path beside the data was left as it was')
  assert.ok(fs.statSync(temporary).isSocket(), 'the writer listens in the temporary folder')
  const a = await startLrs({ ...store, LRS_SQLITE_WRITER: 'process' })
  const s = statement({ id: crypto.randomUUID() })
  assert.equal((await a.client('/statements', { method: 'POST', body: s })).status, 200)
  assert.equal((await a.client(`/statements?statementId=${s.id}`)).json.id, s.id)
  assert.equal((await a.http('/health/ready')).status, 200)
  await writer.stop('SIGTERM')
  assert.ok(!fs.existsSync(temporary), 'a writer that stops removes its socket')
})

test('LRS_WRITER_SOCKET puts the socket where the operator says, for the writer and the workers alike', { skip }, async (t) => {
  const store = freshStore()
  const socket = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-sock-')), 'w.sock')
  t.after(() => fs.rmSync(path.dirname(socket), { recursive: true, force: true }))
  const writer = startWriter(store.LRS_DATA_DIR, { LRS_WRITER_SOCKET: socket })
  t.after(() => writer.stop('SIGKILL'))
  await writer.ready
  assert.ok(fs.statSync(socket).isSocket())
  assert.ok(!fs.existsSync(path.join(store.LRS_DATA_DIR, 'writer.sock')))
  const a = await startLrs({ ...store, LRS_SQLITE_WRITER: 'process', LRS_WRITER_SOCKET: socket })
  assert.equal((await a.client('/statements', { method: 'POST', body: statement() })).status, 200)
})

test('a writer that can listen nowhere exits at start, saying why and what to set', { skip }, async (t) => {
  const store = freshStore()
  const blocked = path.join(store.LRS_DATA_DIR, 'not-a-socket')
  fs.mkdirSync(blocked)
  const writer = startWriter(store.LRS_DATA_DIR, { LRS_WRITER_SOCKET: blocked })
  writer.ready.catch(() => {})
  const { code, stderr } = await writer.exited
  assert.equal(code, 78, 'an exit code PM2 does not restart')
  assert.match(stderr, /cannot listen on a Unix socket .*not-a-socket.*LRS_WRITER_SOCKET/)
})

test('a worker whose writer never came up is not ready, at once, and its writes get 503 after LRS_WRITER_WAIT_MS', { skip }, async (t) => {
  const store = freshStore()
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LRS_LOG_LEVEL: 'silent', LRS_ADMIN_USER: ADMIN.user, LRS_ADMIN_PASSWORD: ADMIN.password, LRS_SQLITE_WRITER: 'process', LRS_WRITER_WAIT_MS: '300', ...store })
  const lrs = await startServer(config)
  t.after(() => lrs.close({ graceMs: 0 }))
  const ready = await fetch(lrs.url + '/health/ready', { signal: AbortSignal.timeout(2000) })
  assert.equal(ready.status, 503)
  const res = await fetch(lrs.url + '/xapi/statements', { method: 'POST', headers: { Authorization: basic(ADMIN.user, ADMIN.password), 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' }, body: JSON.stringify(statement()), signal: AbortSignal.timeout(5000) })
  assert.equal(res.status, 503)
  assert.equal((await res.json()).code, 'LRS_ERR_DATABASE_UNAVAILABLE')
})

test('a second writer for a store that has one refuses to start, naming the socket', { skip }, async (t) => {
  const store = freshStore()
  const first = startWriter(store.LRS_DATA_DIR)
  t.after(() => first.stop('SIGKILL'))
  await first.ready
  const second = startWriter(store.LRS_DATA_DIR)
  second.ready.catch(() => {})
  const { code, stderr } = await second.exited
  assert.equal(code, 78, 'an exit code PM2 does not restart')
  assert.match(stderr, /another writer serves this store \(.*writer\.sock\)/)
})

test('a writer told to stop serves the workers still connected until they leave (PM2 stops every app at once), then exits', { skip }, async (t) => {
  const { writer, workers: [a, b] } = await twoWorkersOnOneWriter(t)
  writer.child.kill('SIGTERM')
  await sleep(200)
  const res = await a.client('/statements', { method: 'POST', body: statement() })
  assert.equal(res.status, 200, 'served while the workers are still there')
  assert.equal(writer.child.exitCode, null)
  const left = Date.now()
  await Promise.all([a.close({ graceMs: 0 }), b.close({ graceMs: 0 })])
  assert.equal((await writer.exited).code, 0)
  assert.ok(Date.now() - left < 1000, 'it exits once they have gone, not at its deadline')
})

// The writer does not look up an id its filter of the stored ids says is
// not there (id-filter.js); these check it never says so of a stored one.
async function untilFilterReady (client) {
  const deadline = Date.now() + 10000
  while (!(await client.call('writerStats')).idFilterReady) {
    assert.ok(Date.now() < deadline, 'the writer read its id filter within 10 s')
    await sleep(50)
  }
}

test('once its id filter is read, the writer finds every id stored before and since: other content is 409, the same statement is not stored twice', { skip }, async (t) => {
  const store = freshStore()
  // statements stored before the writer starts, as after a restart
  const before = await startLrs(store)
  const agent = learner()
  const first = Array.from({ length: 30 }, () => statement({ id: crypto.randomUUID(), actor: agent }))
  assert.equal((await before.client('/statements', { method: 'POST', body: first })).status, 200)
  await before.close({ graceMs: 0 })
  const writer = startWriter(store.LRS_DATA_DIR)
  t.after(() => writer.stop('SIGKILL'))
  await writer.ready
  const lrs = await startLrs({ ...store, LRS_SQLITE_WRITER: 'process' })
  const client = await writerClient(t, store.LRS_DATA_DIR)
  // stored while the filter may be read, and after it is read
  const since = Array.from({ length: 30 }, () => statement({ id: crypto.randomUUID(), actor: agent }))
  assert.equal((await lrs.client('/statements', { method: 'POST', body: since.slice(0, 15) })).status, 200)
  await untilFilterReady(client)
  assert.equal((await lrs.client('/statements', { method: 'POST', body: since.slice(15) })).status, 200)
  for (const s of [...first, ...since]) {
    const other = await lrs.client('/statements', { method: 'POST', body: { ...statement({ actor: agent }), id: s.id } })
    assert.equal(other.status, 409, `${s.id} is taken`)
  }
  assert.equal((await lrs.client('/statements', { method: 'POST', body: [...first, ...since] })).status, 200)
  await assertStored(lrs, agent, [...first, ...since].map((s) => s.id))
  const all = await lrs.client(`/statements?agent=${encodeURIComponent(JSON.stringify(agent))}&limit=1000`)
  assert.equal(all.json.statements.length, 60, 'none stored twice')
})

test('a statement stored beside the writer by another connection (an import) is found by the writer: its id with other content is 409', { skip }, async (t) => {
  const { store, workers: [a] } = await twoWorkersOnOneWriter(t)
  const client = await writerClient(t, store.LRS_DATA_DIR)
  assert.equal((await a.client('/statements', { method: 'POST', body: statement() })).status, 200)
  await untilFilterReady(client)
  // a process of its own on the store, with its own writer thread
  const beside = await startLrs({ ...store, LRS_SQLITE_WRITER: 'thread' })
  const id = crypto.randomUUID()
  assert.equal((await beside.client('/statements', { method: 'POST', body: statement({ id }) })).status, 200)
  await beside.close({ graceMs: 0 })
  const other = await a.client('/statements', { method: 'POST', body: statement({ id }) })
  assert.equal(other.status, 409, other.text)
  // read again (test/storage/id-filter.test.js times it), and still right
  await untilFilterReady(client)
  assert.equal((await a.client('/statements', { method: 'POST', body: statement({ id }) })).status, 409)
})
