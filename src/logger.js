'use strict'

const pino = require('pino')

// One logger for the process; requests get a child bound to their id.
// Authorization headers and statement bodies are never logged.
function createLogger (config, destination) {
  return pino({
    level: config.logLevel,
    base: { pid: process.pid },
    redact: ['req.headers.authorization', 'headers.authorization']
  }, destination)
}

module.exports = { createLogger }
