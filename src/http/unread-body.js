'use strict'

// A request answered without reading its body: refused before the read
// (401), or too large to read (413, raw-body.js). Node discards a small
// unread body itself and keeps the connection; a large one is not worth
// receiving, so the answer says Connection: close and the connection
// closes after it.
//
// Closing at once loses the answer: the client is still writing, and a
// socket closed with unread data in it sends a reset, which a client that
// writes its whole request before reading (most HTTP libraries outside
// browsers) meets as EPIPE or ECONNRESET instead of the answer. So the
// connection closes the way RFC 9112 section 9.6 describes: the answer,
// then a half-close (our FIN), then reading on and discarding what the
// client still sends until it closes too, for a bounded time and bytes
// (the "lingering close" of Apache and nginx). Only then is it destroyed.
const DRAIN_MAX_BYTES = 64 * 1024
const LINGER_MAX_MS = 10000 // at most this long after the answer
const LINGER_IDLE_MS = 2000 // or once the client has sent nothing for this long
const LINGER_MAX_BYTES = 64 * 1024 * 1024 // or once it has sent this much more
const LINGER_CHECK_MS = 250

const lingering = Symbol('lingering')

function closeIfLargeBody (req, res) {
  if (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > DRAIN_MAX_BYTES) {
    closeAfterAnswer(req, res)
  }
}

// The answer says Connection: close; Node's http server then calls the
// socket's destroySoon() once the answer is written (resOnFinish), which
// ends the socket and destroys it as soon as our FIN is out, with the
// client's bytes unread. For this socket, destroySoon lingers instead.
function closeAfterAnswer (req, res) {
  res.setHeader('Connection', 'close')
  const socket = req.socket
  if (req.complete || !socket || socket[lingering]) return
  socket[lingering] = true
  socket.destroySoon = lingerThenDestroy
}

function lingerThenDestroy () {
  const socket = this
  socket.end() // the half-close, after the answer
  // The HTTP parser still reads the socket and discards the body (the
  // request is dumped), so the client's bytes are counted where they
  // arrive: bytesRead counts what the parser consumes too.
  const startedAt = Date.now()
  const startBytes = socket.bytesRead
  let seenBytes = startBytes
  let quietSince = startedAt
  const timer = setInterval(() => {
    const now = Date.now()
    const read = socket.bytesRead
    if (read !== seenBytes) {
      seenBytes = read
      quietSince = now
    }
    // a server shutting down (no longer listening) waits for its
    // connections: it gets the idle bound as the whole time
    const maxMs = socket.server && !socket.server.listening ? LINGER_IDLE_MS : LINGER_MAX_MS
    if (now - startedAt >= maxMs || now - quietSince >= LINGER_IDLE_MS || read - startBytes >= LINGER_MAX_BYTES) socket.destroy()
  }, LINGER_CHECK_MS)
  // the client's own close (its FIN after ours) ends it before the bounds
  socket.once('close', () => clearInterval(timer))
}

module.exports = { closeIfLargeBody, closeAfterAnswer, LINGER_MAX_MS, LINGER_IDLE_MS, LINGER_MAX_BYTES }
