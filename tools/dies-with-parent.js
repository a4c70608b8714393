'use strict'

// A command that gets SIGTERM when the process that started it dies, even
// by kill -9 (Linux: setpriv --pdeathsig, which execs the command, so the
// pid is the command's): an interrupted test run leaves nothing running
// behind it. Elsewhere the command as it is.

const fs = require('node:fs')

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((f) => process.platform === 'linux' && fs.existsSync(f))

// (file, args) -> [file, args] to spawn
function diesWithParent (file, args) {
  return SETPRIV ? [SETPRIV, ['--pdeathsig', 'TERM', '--', file, ...args]] : [file, args]
}

module.exports = { diesWithParent }
