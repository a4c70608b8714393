'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const http = require('node:http')
const { startLrs } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')

// A minimal upstream LRS that records what it receives.
function upstream ({ status = 200 } = {}) {
  const received = []
  const requests = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => { body += c })
    req.on('end', () => {
      requests.push({ url: req.url, auth: req.headers.authorization, version: req.headers['x-experience-api-version'] })
      if (server.status !== 200) { res.statusCode = server.status; return res.end('{}') }
      const list = JSON.parse(body)
      received.push(...list)
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify(list.map((s) => s.id)))
    })
  })
  server.status = status
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, received, requests, port: server.address().port })))
}

async function until (fn, ms = 15000) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await fn()) return true
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return false
}

test('forwarding to an upstream LRS', async (t) => {
  const up = await upstream()
  t.after(() => up.server.close())
  const lrs = await startLrs({ LRS_FORWARD_URLS: `http://fwd:pw@127.0.0.1:${up.port}/xapi` })

  await t.test('stored statements reach the upstream with their ids, with its credentials', async () => {
    const res = await lrs.client('/statements', { method: 'POST', body: [statement(), statement()] })
    assert.equal(res.status, 200)
    assert.ok(await until(() => res.json.every((id) => up.received.some((s) => s.id === id))), 'delivered')
    assert.equal(up.requests[0].url, '/xapi/statements')
    assert.equal(up.requests[0].auth, 'Basic ' + Buffer.from('fwd:pw').toString('base64'))
    assert.ok(await until(async () => (await lrs.storage.internals.db.collection('forward_outbox').countDocuments()) === 0), 'outbox emptied')
  })

  await t.test('a failing upstream does not fail or hold up ingest; entries wait in the outbox and go once it recovers', async () => {
    up.server.status = 503
    const started = Date.now()
    const res = await lrs.client('/statements', { method: 'POST', body: statement() })
    assert.equal(res.status, 200)
    assert.ok(Date.now() - started < 2000)
    await new Promise((resolve) => setTimeout(resolve, 700))
    assert.equal(await lrs.storage.internals.db.collection('forward_outbox').countDocuments(), 1)
    up.server.status = 200
    assert.ok(await until(() => up.received.some((s) => s.id === res.json[0]), 20000), 'delivered after recovery')
  })
})
