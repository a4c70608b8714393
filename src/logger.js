'use strict'

const pino = require('pino')

// One logger for the process; request lines carry the request id.
// Authorization headers and statement bodies are never logged.
//
// Writes are buffered and asynchronous: with one write per request line,
// profiles put that write at 25–290 µs of main-thread time per request on
// our VMs (more than the HTTP response itself); buffered, it dropped to
// about a sixth. server.js flushes the buffer on shutdown.
function createLogger (config, destination = defaultDestination(config)) {
  return pino({
    level: config.logLevel,
    base: { pid: process.pid },
    redact: ['req.headers.authorization', 'headers.authorization']
  }, destination)
}

// A person at a terminal reads lines (pino-pretty); PM2, containers and
// log shippers get JSON (LRS_LOG_FORMAT).
function defaultDestination (config) {
  const pretty = config.logFormat === 'pretty' || (config.logFormat !== 'json' && process.stdout.isTTY)
  if (!pretty) return bufferedStdout()
  return require('pino-pretty')({ destination: 1, colorize: Boolean(process.stdout.isTTY), translateTime: 'SYS:HH:MM:ss.l', ignore: 'hostname' })
}

// Lines are written in chunks of at least 4 KB, and at least once a second
// when traffic is low, instead of one write per line.
function bufferedStdout () {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 })
  setInterval(() => stream.flush(), 1000).unref()
  return stream
}

// For command-line tools and short-lived processes: synchronous, on stderr,
// so nothing is lost when they exit right after logging.
function createToolLogger (config) {
  return createLogger(config, pino.destination({ dest: 2, sync: true }))
}

// Writes out at once what the logger holds: for a line that must be seen
// before long synchronous work blocks the event loop (an upgrade of a
// large store at start would otherwise keep its "upgrading" line in the
// buffer until it ended).
function flushNow (logger) {
  const stream = logger[pino.symbols.streamSym]
  try {
    if (stream && typeof stream.flushSync === 'function') stream.flushSync()
  } catch {} // not open yet, or being written: the line follows shortly
}

module.exports = { createLogger, createToolLogger, flushNow }
