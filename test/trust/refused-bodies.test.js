'use strict'

// Issue 55 item 10: a large body refused before it is read (413 over
// LRS_BODY_LIMIT, 401) must reach the client as that answer, not as a
// connection reset. The LRS says Connection: close, half-closes after the
// answer and reads on, discarding, for a bounded time (RFC 9112 9.6), so a
// client still writing its body can read the answer.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const net = require('node:net')
const { startLrs, basic, ADMIN } = require('../helpers/lrs')
const { LINGER_MAX_MS, LINGER_IDLE_MS } = require('../../src/http/unread-body')

const MB = 1000 * 1000
const CHUNK = 64 * 1024

// POST /xapi/statements over a socket of its own, `total` bytes of body in
// 64 KiB pieces as fast as the socket takes them (or one piece every
// `everyMs`; `stopAfter`: bytes after which it goes quiet without closing).
// `readAfterWrite`: reads nothing until it has written everything, as
// clients that write the whole request before reading do. Like such
// clients, it goes on writing after the LRS's half-close (allowHalfOpen).
// `giveUpMs`: it closes itself that long after it began. Resolves when the
// connection is gone: the answer's status, headers and body as read, the
// socket error if any, how much was sent, when the answer was read, whether
// the LRS closed its side and the client's port.
function postRaw (port, { total, chunked = false, auth = [ADMIN.user, ADMIN.password], readAfterWrite = false, everyMs = 0, stopAfter = Infinity, giveUpMs = 60000 }) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true })
    const giveUp = setTimeout(() => socket.destroy(), giveUpMs)
    const piece = Buffer.alloc(CHUNK, 0x20)
    let received = Buffer.alloc(0)
    let answeredAt = null
    let ended = false // the LRS's FIN came
    let error = null
    let sent = 0
    let gone = false
    const head = ['POST /xapi/statements HTTP/1.1', 'Host: lrs', `Authorization: ${basic(...auth)}`, 'X-Experience-API-Version: 1.0.3',
      'Content-Type: application/json', chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${total}`, '', ''].join('\r\n')
    if (readAfterWrite) socket.pause()
    socket.on('data', (data) => {
      received = Buffer.concat([received, data])
      if (answeredAt === null && parse(received).complete) answeredAt = Date.now()
    })
    socket.on('end', () => { ended = true })
    socket.on('error', (err) => { error = err.code })
    socket.on('close', () => {
      gone = true
      clearTimeout(giveUp)
      resolve({ ...parse(received), error, sent, answeredAt, ended, port: localPort })
    })
    let localPort = null
    socket.on('connect', () => { localPort = socket.localPort })
    socket.write(head)
    const pump = () => {
      while (!gone && sent < total && sent < stopAfter) {
        const n = Math.min(CHUNK, total - sent)
        const body = piece.subarray(0, n)
        sent += n
        const more = socket.write(chunked ? Buffer.concat([Buffer.from(n.toString(16) + '\r\n'), body, Buffer.from('\r\n')]) : body)
        if (everyMs) return setTimeout(pump, everyMs)
        if (!more) return socket.once('drain', pump)
      }
      if (gone || sent < total) return
      if (chunked) socket.write('0\r\n\r\n')
      socket.resume()
      socket.end()
    }
    pump()
  })
}

function parse (bytes) {
  const at = bytes.indexOf('\r\n\r\n')
  if (at < 0) return { complete: false, status: null }
  const [statusLine, ...lines] = bytes.subarray(0, at).toString('latin1').split('\r\n')
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  const body = bytes.subarray(at + 4, at + 4 + Number(headers['content-length'] || 0))
  const complete = body.length === Number(headers['content-length'] || 0)
  let json
  try { json = JSON.parse(body.toString('utf8')) } catch {}
  return { complete, status: Number(statusLine.split(' ')[1]), headers, json }
}

function assertAnswered (res, status, code) {
  assert.equal(res.status, status, `the client read the answer (socket error: ${res.error}, ${res.sent} bytes sent)`)
  assert.ok(res.complete, 'the whole answer')
  assert.equal(res.json.code, code)
  assert.equal(res.headers.connection, 'close')
  assert.ok(res.ended, 'the LRS closed its side after the answer')
}

test('a 50 MB body over LRS_BODY_LIMIT (Content-Length): a client still writing reads the 413, then the LRS closes', async () => {
  const lrs = await startLrs()
  for (let i = 0; i < 3; i++) {
    const res = await postRaw(lrs.port, { total: 50 * MB })
    assertAnswered(res, 413, 'LRS_ERR_PAYLOAD_TOO_LARGE')
    assert.equal(res.error, null, 'no reset: the LRS read on while the client wrote')
    assert.equal(res.sent, 50 * MB)
  }
})

test('a chunked body (no Content-Length) growing past LRS_BODY_LIMIT: the client reads the 413', async () => {
  const lrs = await startLrs({ LRS_BODY_LIMIT: String(5 * 1024 * 1024) })
  for (let i = 0; i < 3; i++) {
    const res = await postRaw(lrs.port, { total: 50 * MB, chunked: true })
    assertAnswered(res, 413, 'LRS_ERR_PAYLOAD_TOO_LARGE')
    assert.equal(res.error, null)
  }
})

test('a client that writes the whole 50 MB before reading reads the answer: 413, and 401 for a wrong secret', async () => {
  const lrs = await startLrs({ LRS_AUTH_MAX_FAILURES: '1000' })
  for (let i = 0; i < 3; i++) {
    const tooLarge = await postRaw(lrs.port, { total: 50 * MB, readAfterWrite: true })
    assertAnswered(tooLarge, 413, 'LRS_ERR_PAYLOAD_TOO_LARGE')
    assert.equal(tooLarge.error, null)
    const refused = await postRaw(lrs.port, { total: 50 * MB, readAfterWrite: true, auth: [ADMIN.user, 'wrong'] })
    assertAnswered(refused, 401, 'LRS_ERR_AUTH_REQUIRED')
    assert.equal(refused.error, null)
  }
})

test('fetch posting 50 MB gets its 413, and its 401 for a wrong secret, every time (no ECONNRESET, no EPIPE)', async () => {
  const lrs = await startLrs({ LRS_AUTH_MAX_FAILURES: '1000' })
  const body = Buffer.alloc(50 * MB, 0x20)
  const outcomes = { 413: [], 401: [] }
  for (let i = 0; i < 10; i++) {
    for (const [status, auth] of [[413, [ADMIN.user, ADMIN.password]], [401, [ADMIN.user, 'wrong']]]) {
      try {
        const res = await fetch(lrs.url + '/xapi/statements', { method: 'POST', body, headers: { Authorization: basic(...auth), 'X-Experience-API-Version': '1.0.3', 'Content-Type': 'application/json' } })
        await res.arrayBuffer()
        outcomes[status].push(res.status)
      } catch (err) {
        outcomes[status].push((err.cause && err.cause.code) || err.message)
      }
    }
  }
  assert.deepEqual(outcomes, { 413: Array(10).fill(413), 401: Array(10).fill(401) })
})

test('the reading on is bounded: a client that never stops sending is cut off after the linger time, one gone quiet after the idle time', async () => {
  const lrs = await startLrs()
  const closedAt = new Map() // the LRS's end of each connection, by the client's port
  lrs.server.on('connection', (s) => {
    const port = s.remotePort
    s.once('close', () => closedAt.set(port, Date.now()))
  })
  const giveUpMs = LINGER_MAX_MS + 5000
  // 64 KiB every 20 ms (about 3 MB/s) of a declared 1 GB
  const endless = await postRaw(lrs.port, { total: 1000 * MB, everyMs: 20, giveUpMs })
  const quiet = await postRaw(lrs.port, { total: 1000 * MB, stopAfter: 1 * MB, giveUpMs })
  assertAnswered(endless, 413, 'LRS_ERR_PAYLOAD_TOO_LARGE')
  assertAnswered(quiet, 413, 'LRS_ERR_PAYLOAD_TOO_LARGE')
  const after = (res) => closedAt.has(res.port) ? closedAt.get(res.port) - res.answeredAt : Infinity
  assert.ok(after(endless) <= LINGER_MAX_MS + 1000, `the LRS closed ${after(endless)} ms after the answer (bound ${LINGER_MAX_MS} ms)`)
  assert.ok(after(quiet) <= LINGER_IDLE_MS + 1000, `the LRS closed ${after(quiet)} ms after the answer (idle bound ${LINGER_IDLE_MS} ms)`)
})
