'use strict'

// A forwarding target for bench/forwarding.js, in a process of its own
// (child_process.fork), so that reading and parsing what arrives does not
// run on the load generator's event loop. It is an upstream LRS (POST
// .../statements: a JSON array, answered at once with the ids) or a webhook
// receiver (Standard Webhooks: every delivery's signature is checked, from
// the specification, not with the LRS's code; 204 when it holds, 401 and
// counted when not). It notes when each statement first arrived, how many
// arrived again, and for a webhook the deliveries per webhook-id (the
// idempotency key: a retried delivery keeps its id).
//
// Commands over IPC ({ seq, cmd, ... }, each answered { seq, ... }):
//   listen { kind, secret }   listen on 127.0.0.1 (a port outside the
//                             ephemeral range, so that no outgoing
//                             connection holds it while the target is down)
//   down                      stop listening and drop every connection (an
//                             outage: connections refused)
//   up                        listen again on the same port
//   expect { ids }            the acknowledged ids, for `missing`
//   missing                   how many expected ids have not arrived
//   report                    what arrived: [id, first arrival ms] of the
//                             expected ids, and the counts
//   stop                      close and exit

const http = require('node:http')
const crypto = require('node:crypto')

const arrived = new Map() // statement id -> first arrival (ms)
const byWebhookId = new Map() // webhook-id -> deliveries
let kind = 'lrs'
let key = null // the webhook secret's bytes
let server = null
let port = null
let expected = null
const counts = { requests: 0, statementsReceived: 0, extraDeliveries: 0, badSignatures: 0, staleTimestamps: 0 }
// extra deliveries of a statement under a webhook-id not seen before (a
// receiver deduplicating by webhook-id would not catch them)
let extraUnderNewWebhookId = 0
const sockets = new Set()

function verified (req, body) {
  const id = req.headers['webhook-id']
  const timestamp = req.headers['webhook-timestamp']
  if (!id || !timestamp) return false
  const expectedSig = crypto.createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest()
  const given = String(req.headers['webhook-signature'] || '').split(' ').map((p) => p.split(',')).filter((p) => p[0] === 'v1').map((p) => Buffer.from(p[1] || '', 'base64'))
  const ok = given.some((g) => g.length === expectedSig.length && crypto.timingSafeEqual(g, expectedSig))
  if (ok && Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) {
    counts.staleTimestamps++
    return false
  }
  return ok
}

function handle (req, res) {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    const now = Date.now()
    counts.requests++
    const body = Buffer.concat(chunks)
    let list
    let newWebhookId = false
    if (kind === 'webhook') {
      if (!verified(req, body)) {
        counts.badSignatures++
        res.statusCode = 401
        return res.end()
      }
      const id = req.headers['webhook-id']
      newWebhookId = !byWebhookId.has(id)
      byWebhookId.set(id, (byWebhookId.get(id) || 0) + 1)
      list = JSON.parse(body.toString('utf8')).data.statements
    } else {
      list = JSON.parse(body.toString('utf8'))
    }
    for (const s of list) {
      counts.statementsReceived++
      if (arrived.has(s.id)) {
        counts.extraDeliveries++
        if (newWebhookId) extraUnderNewWebhookId++
      } else arrived.set(s.id, now)
    }
    if (kind === 'webhook') {
      res.statusCode = 204
      return res.end()
    }
    res.setHeader('Content-Type', 'application/json')
    res.end(JSON.stringify(list.map((s) => s.id)))
  })
}

function listenOn (p) {
  return new Promise((resolve, reject) => {
    server = http.createServer(handle)
    server.keepAliveTimeout = 5000
    server.on('connection', (socket) => {
      sockets.add(socket)
      socket.on('close', () => sockets.delete(socket))
    })
    server.once('error', reject)
    server.listen(p, '127.0.0.1', () => {
      server.off('error', reject)
      resolve(server.address().port)
    })
  })
}

async function listen () {
  // below the ephemeral range (/proc/sys/net/ipv4/ip_local_port_range)
  for (let tries = 0; ; tries++) {
    try {
      return await listenOn(20000 + crypto.randomInt(12000))
    } catch (err) {
      if (err.code !== 'EADDRINUSE' || tries > 50) throw err
    }
  }
}

function down () {
  const s = server
  server = null
  return new Promise((resolve) => {
    s.close(() => resolve())
    s.closeAllConnections()
    for (const socket of sockets) socket.destroy()
  })
}

async function up () {
  for (let tries = 0; ; tries++) {
    try {
      return await listenOn(port)
    } catch (err) {
      if (err.code !== 'EADDRINUSE' || tries > 100) throw err
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

const webhookIdCounts = () => {
  let repeated = 0
  let maxPerId = 0
  for (const n of byWebhookId.values()) {
    if (n > 1) repeated++
    if (n > maxPerId) maxPerId = n
  }
  return { webhookIds: byWebhookId.size, webhookIdsDeliveredMoreThanOnce: repeated, maxDeliveriesPerWebhookId: maxPerId, extraUnderNewWebhookId }
}

const commands = {
  async listen (msg) {
    kind = msg.kind
    if (kind === 'webhook') key = Buffer.from(msg.secret.replace(/^whsec_/, ''), 'base64')
    port = await listen()
    return { port }
  },
  async down () { await down(); return { at: Date.now() } },
  async up () { await up(); return { at: Date.now() } },
  async expect (msg) { expected = msg.ids; return { expected: expected.length } },
  async missing () { return { missing: expected ? expected.filter((id) => !arrived.has(id)).length : null, arrived: arrived.size } },
  async report () {
    const arrivals = expected ? expected.filter((id) => arrived.has(id)).map((id) => [id, arrived.get(id)]) : [...arrived]
    return { arrivals, arrived: arrived.size, ...counts, ...(kind === 'webhook' && webhookIdCounts()) }
  },
  async stop () {
    if (server) await down()
    setImmediate(() => process.exit(0))
    return {}
  }
}

process.on('message', async (msg) => {
  try {
    process.send({ seq: msg.seq, ...await commands[msg.cmd](msg) })
  } catch (err) {
    process.send({ seq: msg.seq, error: err.message })
  }
})
// the bench gone: nothing left to serve
process.on('disconnect', () => process.exit(0))
