'use strict'

// Issue 56: GET /feed/statements, the live feed. New statements that match
// GET /statements' filters and that the credential may read arrive as
// Server-Sent Events in stored order; Last-Event-ID resumes just after the
// last event, with nothing missed or repeated; bad input is a 4xx with a
// JSON message.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const crypto = require('node:crypto')
const { startLrs, ADMIN, basic } = require('../helpers/lrs')
const { statement, allIds } = require('../helpers/statements')
const { storeWithAdmin, postStatements: post } = require('../helpers/stores')
const { openEventStream } = require('../helpers/event-stream')

const COMPLETED = 'http://adlnet.gov/expapi/verbs/completed'
const ATTEMPTED = 'http://adlnet.gov/expapi/verbs/attempted'
// a short Consistent-Through margin and poll: events within a fraction of a second
const QUICK = { LRS_CONSISTENCY_MARGIN_MS: '100', LRS_CLOCK_SKEW_MS: '0', LRS_FEED_POLL_MS: '50' }
const auth = (user, password) => ({ Authorization: basic(user, password) })
// the ids of a feed's events, after checking they come in stored order
// (statements of one write share their stored time: then in the store's
// order, which is not the order they were posted in)
function idsInStoredOrder (events) {
  const statements = events.map((e) => JSON.parse(e.data))
  for (let i = 1; i < statements.length; i++) assert.ok(statements[i - 1].stored <= statements[i].stored, 'in stored order')
  return statements.map((st) => st.id)
}
const sorted = (list) => [...list].sort()

test('a feed sends each new statement that matches its filters, in stored order; reconnected with Last-Event-ID it goes on just after, nothing missed or repeated', async (t) => {
  const lrs = await startLrs(QUICK)
  const before = await post(lrs.client, [statement({ verb: { id: COMPLETED } })]) // stored before the feed opens: not sent
  await new Promise((resolve) => setTimeout(resolve, 300)) // (a feed starts at Consistent-Through, 100 ms back here)
  const url = `${lrs.url}/feed/statements?verb=${encodeURIComponent(COMPLETED)}`
  const feed = await openEventStream(url, { headers: auth(ADMIN.user, ADMIN.password) })
  t.after(() => feed.close())
  assert.equal(feed.status, 200)
  assert.match(feed.headers.get('content-type'), /^text\/event-stream/)

  const first = []
  for (let i = 0; i < 3; i++) first.push(...await post(lrs.client, [statement({ verb: { id: COMPLETED } }), statement({ verb: { id: ATTEMPTED } })]))
  const wanted = first.filter((_, i) => i % 2 === 0)
  const events = await feed.until(3)
  await new Promise((resolve) => setTimeout(resolve, 400)) // what should not come has had time to
  assert.deepEqual(sorted(idsInStoredOrder(feed.events)), sorted(wanted), 'only the completions, in stored order')
  assert.ok(events.every((e) => e.event === 'statement' && e.id && JSON.parse(e.data).stored && JSON.parse(e.data).authority))
  feed.close()

  // while it is away: two more; resumed after the second event
  const later = await post(lrs.client, [statement({ verb: { id: COMPLETED } }), statement({ verb: { id: COMPLETED } })])
  const sent = idsInStoredOrder(events)
  const resumed = await openEventStream(url, { headers: { ...auth(ADMIN.user, ADMIN.password), 'Last-Event-ID': events[1].id } })
  t.after(() => resumed.close())
  await resumed.until(3)
  await new Promise((resolve) => setTimeout(resolve, 400))
  const rest = idsInStoredOrder(resumed.events)
  assert.equal(rest[0], sent[2], 'just after the event named')
  assert.deepEqual(sorted(rest), sorted([sent[2], ...later]), 'the rest, once each')

  // since: from a given instant, with format=ids
  const fromStart = await openEventStream(`${url}&since=2000-01-01T00:00:00Z&format=ids`, { headers: auth(ADMIN.user, ADMIN.password) })
  t.after(() => fromStart.close())
  await fromStart.until(5)
  assert.deepEqual(sorted(idsInStoredOrder(fromStart.events)), sorted([...before, ...wanted, ...later]))
})

test('a feed sends what its credential may read: its store only, and with statements/read/mine its own statements only', async (t) => {
  const lrs = await startLrs(QUICK)
  const acme = await storeWithAdmin(lrs, 'acme')
  const mine = await acme.admin('/admin/credentials', { method: 'POST', body: { scopes: ['statements/write', 'statements/read/mine'], store: 'acme' } })
  assert.equal(mine.status, 201, mine.text)
  const acmeFeed = await openEventStream(`${lrs.url}/feed/statements`, { headers: auth(...acme.auth) })
  const mineFeed = await openEventStream(`${lrs.url}/feed/statements`, { headers: auth(mine.json.key, mine.json.secret) })
  t.after(() => { acmeFeed.close(); mineFeed.close() })
  const byAdmin = await post(acme.xapi, [statement()])
  const byMine = await post((p, o) => lrs.client(p, { ...o, auth: [mine.json.key, mine.json.secret] }), [statement()])
  await post(lrs.client, [statement()]) // the default store's
  await acmeFeed.until(2)
  await mineFeed.until(1)
  await new Promise((resolve) => setTimeout(resolve, 400))
  assert.deepEqual(acmeFeed.events.map((e) => JSON.parse(e.data).id).sort(), [...byAdmin, ...byMine].sort(), 'its store\'s, not the default store\'s')
  assert.deepEqual(mineFeed.events.map((e) => JSON.parse(e.data).id), byMine, 'its own only')
  // an event id of one store resumes nothing in another
  const crossed = await openEventStream(`${lrs.url}/feed/statements`, { headers: { ...auth(ADMIN.user, ADMIN.password), 'Last-Event-ID': acmeFeed.events[0].id } })
  assert.equal(crossed.status, 400)
  assert.equal(crossed.json.code, 'LRS_ERR_PARAMETER_INVALID')
})

test('a feed is driven by the store: statements stored through another LRS on the same store reach it', async (t) => {
  const a = await startLrs(QUICK)
  const b = await startLrs({ ...QUICK, ...a.storeEnv })
  const feed = await openEventStream(`${b.url}/feed/statements`, { headers: auth(ADMIN.user, ADMIN.password) })
  t.after(() => feed.close())
  const throughA = await post(a.client, [statement(), statement()])
  const throughB = await post(b.client, [statement()])
  await feed.until(3)
  assert.deepEqual(feed.events.map((e) => JSON.parse(e.data).id).sort(), [...throughA, ...throughB].sort())
})

test('a feed refuses what it cannot serve with a JSON 4xx: no credentials, a bad filter or event id, a credential over its number of open feeds', async (t) => {
  const lrs = await startLrs({ ...QUICK, LRS_FEED_MAX_PER_CREDENTIAL: '1' })
  const url = `${lrs.url}/feed/statements`
  const none = await openEventStream(url)
  assert.equal(none.status, 401)
  assert.match(none.json.message, /./)
  const badVerb = await openEventStream(`${url}?verb=not%20an%20iri`, { headers: auth(ADMIN.user, ADMIN.password) })
  assert.equal(badVerb.status, 400)
  const unknown = await openEventStream(`${url}?limit=5`, { headers: auth(ADMIN.user, ADMIN.password) })
  assert.equal(unknown.status, 400, 'limit is not a feed parameter')
  const forged = await openEventStream(url, { headers: { ...auth(ADMIN.user, ADMIN.password), 'Last-Event-ID': crypto.randomBytes(40).toString('base64url') } })
  assert.equal(forged.status, 400)
  assert.match(forged.json.message, /Last-Event-ID/)
  const one = await openEventStream(url, { headers: auth(ADMIN.user, ADMIN.password) })
  t.after(() => one.close())
  assert.equal(one.status, 200)
  const two = await openEventStream(url, { headers: auth(ADMIN.user, ADMIN.password) })
  assert.equal(two.status, 429)
  assert.equal(two.json.code, 'LRS_ERR_FEED_LIMIT')
  one.close()
  let again
  for (let i = 0; i < 50; i++) {
    again = await openEventStream(url, { headers: auth(ADMIN.user, ADMIN.password) })
    if (again.status === 200) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.equal(again.status, 200, 'a feed closed frees its place')
  again.close()
})

test('feeds that reconnect at random points while statements flow get each matching statement once, in stored order, as GET /statements answers; a statement that targets a match through a StatementRef matches too', async (t) => {
  // a margin FerretDB's writes keep within here: a batch later than it is
  // stored again at a later time, which a reader resuming between the two
  // may get twice on MongoDB (docs/feed.md)
  const lrs = await startLrs({ ...QUICK, LRS_CONSISTENCY_MARGIN_MS: '1500' })
  const headers = auth(ADMIN.user, ADMIN.password)
  const since = new Date(Date.now() - 1000).toISOString()
  const filtered = `verb=${encodeURIComponent(COMPLETED)}`
  // a reader that disconnects after a random number of events and resumes from its last one
  function reader (query) {
    const got = []
    let stream = null
    let stopped = false
    const done = (async () => {
      let lastId = null
      while (!stopped) {
        stream = await openEventStream(`${lrs.url}/feed/statements?since=${since}&${query}`, { headers: { ...headers, ...(lastId && { 'Last-Event-ID': lastId }) } })
        assert.equal(stream.status, 200)
        const want = 1 + crypto.randomInt(12)
        try { await stream.until(want) } catch { /* fewer came: resume all the same */ }
        stream.close()
        got.push(...stream.events)
        if (stream.events.length) lastId = stream.events[stream.events.length - 1].id
      }
    })()
    return { got, stop: async () => { stopped = true; if (stream) stream.close(); await done } }
  }
  const readers = [reader(''), reader(''), reader(filtered), reader(filtered)]
  t.after(() => Promise.all(readers.map((r) => r.stop())))
  const completions = []
  for (let i = 0; i < 20; i++) {
    const ids = await post(lrs.client, [statement({ verb: { id: COMPLETED } }), statement({ verb: { id: ATTEMPTED } }), statement({ verb: { id: ATTEMPTED } })])
    completions.push(ids[0])
    // an attempt that targets a completion: it matches the verb filter through its target
    if (i % 5 === 4) await post(lrs.client, [statement({ verb: { id: ATTEMPTED }, object: { objectType: 'StatementRef', id: completions[i - 2] } })])
    await new Promise((resolve) => setTimeout(resolve, crypto.randomInt(60)))
  }
  const everything = await allIds(lrs, `since=${since}&ascending=true`)
  const matching = await allIds(lrs, `since=${since}&ascending=true&${filtered}`)
  assert.equal(everything.length, 64)
  assert.equal(matching.length, 24, '20 completions and the 4 attempts that target one')
  const deadline = Date.now() + 20000
  const ids = (r) => r.got.map((e) => JSON.parse(e.data).id)
  while (Date.now() < deadline && readers.some((r, i) => ids(r).length < (i < 2 ? everything : matching).length)) await new Promise((resolve) => setTimeout(resolve, 100))
  await Promise.all(readers.map((r) => r.stop()))
  for (const [i, r] of readers.entries()) {
    const got = idsInStoredOrder(r.got)
    assert.deepEqual(got, i < 2 ? everything : matching, `reader ${i}: every statement once, in stored order, none missed across its reconnections`)
  }
})
