'use strict'

// A flood of wrong secrets for a key must not lock that key's valid
// clients out, on any worker: the LRS started as `npm start` starts it
// (pm2-runtime, ecosystem.config.js, two workers), the flood sent with
// the valid client's own key from the valid client's own address (clients
// behind one NAT share it), a new connection per request so that PM2 hands
// them to both workers (but the valid client's requests before the flood,
// which share one connection, and so one worker).

const test = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const fs = require('node:fs')
const { freshStore, dropStoreDatabase } = require('../helpers/lrs')
const { startLrs } = require('../../bench/lrs-process')

const ADMIN = ['bench', 'bench-secret'] // what bench/lrs-process.js starts the LRS with

const basic = ([user, secret]) => 'Basic ' + Buffer.from(`${user}:${secret}`).toString('base64')

// One request on a connection of its own (from `localAddress`): its
// status and how long it took (ms).
function get (url, auth, { localAddress = '127.0.0.1', agent = false } = {}) {
  const started = Date.now()
  return new Promise((resolve, reject) => {
    const req = http.get(url + '/xapi/statements?limit=1', { agent, localAddress, headers: { Authorization: basic(auth), 'X-Experience-API-Version': '1.0.3' } }, (res) => {
      res.resume()
      res.on('end', () => resolve({ status: res.statusCode, ms: Date.now() - started }))
    })
    req.on('error', reject)
  })
}

async function createCredential (url, key) {
  const res = await fetch(url + '/admin/credentials', { method: 'POST', headers: { Authorization: basic(ADMIN), 'Content-Type': 'application/json' }, body: JSON.stringify({ key, scopes: ['all'] }) })
  const body = await res.json()
  assert.equal(res.status, 201, JSON.stringify(body))
  return [key, body.secret]
}

test('a flood of wrong secrets for a key, from its valid client\'s own address, leaves that client served on every worker, and a first request from elsewhere verified within 1 s', async (t) => {
  const storeEnv = freshStore()
  const lrs = await startLrs({ store: { lrsEnv: storeEnv }, env: { LRS_INSTANCES: '2', LRS_LOG_LEVEL: 'error' } })
  t.after(async () => {
    await lrs.stop()
    await dropStoreDatabase(storeEnv)
    fs.rmSync(storeEnv.LRS_DATA_DIR, { recursive: true, force: true })
  })
  const valid = await createCredential(lrs.url, 'lms')
  const other = await createCredential(lrs.url, 'lms-other')
  // verified before the flood, on one keep-alive connection: by one worker
  const kept = new http.Agent({ keepAlive: true, maxSockets: 1 })
  for (let i = 0; i < 6; i++) assert.equal((await get(lrs.url, valid, { agent: kept })).status, 200, 'verified before the flood')
  kept.destroy()

  const floodUntil = Date.now() + 5000
  const flood = {}
  const flooder = async (i) => {
    for (let n = 0; Date.now() < floodUntil; n++) {
      // the valid client's key, and the key whose first valid request comes later
      const { status } = await get(lrs.url, [n % 2 ? valid[0] : other[0], `wrong-${i}-${n}`])
      flood[status] = (flood[status] || 0) + 1
    }
  }
  const flooding = Promise.all(Array.from({ length: 40 }, (_, i) => flooder(i)))

  const during = []
  let first = null
  while (Date.now() < floodUntil) {
    during.push((await get(lrs.url, valid)).status)
    if (first === null && Date.now() > floodUntil - 3000) first = await get(lrs.url, other, { localAddress: '127.0.0.2' })
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await flooding
  t.diagnostic(`flood ${JSON.stringify(flood)}; the valid client ${during.length} requests; a first request from elsewhere ${first && first.ms} ms`)

  assert.ok(flood[429] > 0, `the flood was refused: ${JSON.stringify(flood)}`)
  // each wrong secret checked costs a 60 ms scrypt; past the limit (10 per
  // address per worker, two workers) they are refused unchecked
  assert.ok((flood[401] || 0) <= 20, `wrong secrets checked: ${JSON.stringify(flood)}`)
  assert.ok(during.length >= 20, `${during.length} requests of the valid client`)
  assert.deepEqual([...new Set(during)], [200], `the valid client during the flood: ${during.join(' ')}`)
  assert.equal(first.status, 200, 'a valid first request from another address')
  assert.ok(first.ms <= 1000, `verified in ${first.ms} ms`)
  for (let i = 0; i < 6; i++) assert.equal((await get(lrs.url, valid)).status, 200, 'after the flood')
  // the flood's own address stays refused for what it never proved
  assert.equal((await get(lrs.url, [other[0], 'wrong-after'])).status, 429)
})
