'use strict'

const pino = require('pino')

// One logger for the process; requests get a child bound to their id.
// Authorization headers and statement bodies are never logged.
//
// Writes are asynchronous: lines logged while a write is in flight go out
// together in the next one. A synchronous write per
// request line cost about 25 µs of CPU per request in profiles, as much as
// the HTTP response itself. server.js flushes the buffer on shutdown.
function createLogger (config, destination = pino.destination({ dest: 1, sync: false })) {
  return pino({
    level: config.logLevel,
    base: { pid: process.pid },
    redact: ['req.headers.authorization', 'headers.authorization']
  }, destination)
}

module.exports = { createLogger }
