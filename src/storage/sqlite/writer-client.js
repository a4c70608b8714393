'use strict'

// A worker's side of the host's writer process (writer-process.js), with
// the same face as a writer thread (writer.js): `call(op, ...args)`
// resolves with what the operation returned, or rejects with its error.
//
// When the writer is away (restarting, or not started yet) a call waits
// for it up to `waitMs`, then fails with DatabaseUnavailable (503, Retry-
// After). A call the writer had received when its connection broke fails
// at once with the same: whether it was committed is unknown, and it was
// not acknowledged. A call the writer sends back because it is closing
// waits for the next writer: it was not run.

const net = require('node:net')
const { errors } = require('../../errors')
const { sendFrame, readFrames } = require('./writer-socket')
const { errorFrom } = require('./writer-errors')

const RECONNECT_MS = 100
// Requests queued in the worker while the writer was away are answered a
// moment after the held writes; until then they still look stalled to
// load shedding (the oldest has waited the whole gap).
const RECOVERY_MS = 500

// `socketPaths`: where the writer may listen (writer-socket.js); each is
// tried in turn until one answers.
function connectWriter (socketPaths, logger, { waitMs }) {
  const paths = [].concat(socketPaths)
  let attempt = 0
  const calls = new Map() // id -> { message, resolve, reject, sent, timer }
  const unsent = [] // calls waiting for a writer
  let next = 0
  let held = 0 // calls made to wait for a writer and not answered yet
  let recoveredAt = 0 // when the last of them was answered
  let socket = null // the connection to the writer, once it is up
  let closed = false
  let signalReady
  const ready = new Promise((resolve) => { signalReady = resolve })

  function unavailable (why) {
    return errors.DatabaseUnavailable(undefined, { cause: new Error(why) })
  }

  function send (call) {
    call.sent = true
    clearTimeout(call.timer)
    sendFrame(socket, call.message)
  }

  function hold (call) {
    call.sent = false
    if (!call.held) {
      call.held = true
      held++
    }
    call.timer = setTimeout(() => {
      const at = unsent.indexOf(call)
      if (at >= 0) unsent.splice(at, 1)
      settle(call, unavailable(`no SQLite writer within ${waitMs} ms`))
    }, waitMs)
    unsent.push(call)
  }

  function settle (call, error, value) {
    calls.delete(call.message.id)
    if (call.held && --held === 0) recoveredAt = Date.now()
    if (error) call.reject(error)
    else call.resolve(value)
  }

  function onFrame (frame) {
    if (frame.closing) {
      socket = null // what is called from now on waits for the next writer
      return
    }
    for (const r of frame.replies) {
      const call = calls.get(r.id)
      if (!call) continue
      if (r.retry) { hold(call); continue }
      settle(call, r.error && errorFrom(r.error), r.value)
    }
  }

  function connect () {
    const socketPath = paths[attempt++ % paths.length]
    const s = net.createConnection(socketPath)
    let up = false
    s.on('connect', () => {
      up = true
      attempt-- // the same path first next time
      socket = s
      logger.info({ socket: socketPath }, 'connected to the SQLite writer')
      signalReady()
      for (const call of unsent.splice(0)) send(call)
    })
    readFrames(s, onFrame)
    s.on('error', () => {}) // 'close' follows
    s.on('close', () => {
      if (socket === s) socket = null
      let lost = 0
      for (const call of [...calls.values()]) {
        if (!call.sent) continue
        lost++
        settle(call, unavailable('the connection to the SQLite writer broke'))
      }
      if (up && !closed) logger.warn({ socket: socketPath, writesInFlight: lost }, 'SQLite writer connection lost; reconnecting')
      if (!closed) setTimeout(connect, RECONNECT_MS).unref()
    })
  }
  connect()

  return {
    ready,
    call (op, ...args) {
      if (closed) return Promise.reject(unavailable('the store is closed'))
      return new Promise((resolve, reject) => {
        const message = { id: next++, op, args }
        const call = { message, resolve, reject, sent: false, timer: null }
        calls.set(message.id, call)
        if (socket) send(call)
        else hold(call)
      })
    },
    // The readiness check: not ready while no writer is connected.
    get failed () { return socket || closed ? null : unavailable('no SQLite writer connected') },
    // While a writer is being replaced, and until the writes held for it
    // are answered: writes wait for a moment without the LRS being
    // overloaded (load shedding leaves them be).
    get restarting () { return !closed && (socket === null || held > 0 || Date.now() - recoveredAt < RECOVERY_MS) },
    async close () {
      closed = true
      for (const call of unsent.splice(0)) {
        clearTimeout(call.timer)
        settle(call, unavailable('the store is closed'))
      }
      if (socket) socket.end()
    }
  }
}

module.exports = { connectWriter }
