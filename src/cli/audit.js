'use strict'

// The audit line of a change made from the command line: the same fields
// as the admin API's (audit, key, scopes, agentDigest, removed) with who
// acted: `actor: 'cli'` and the operating-system user, since a CLI run has
// no credential. On stderr (pino, synchronous: nothing lost at exit),
// whatever LRS_LOG_LEVEL says, since a change must not go unrecorded.
// Secrets are never passed here.

const os = require('node:os')
const { createToolLogger } = require('../logger')

function osUser () {
  try {
    return os.userInfo().username
  } catch {
    return String(process.getuid ? process.getuid() : 'unknown') // a uid without a passwd entry (containers)
  }
}

function auditLogger (config) {
  return createToolLogger({ ...config, logLevel: 'info' }).child({ actor: 'cli', osUser: osUser() })
}

module.exports = { auditLogger }
