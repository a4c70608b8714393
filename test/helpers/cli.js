'use strict'

// Runs `node bin/lrs.js ARGS` as a real process against a store (its env
// from freshStore or an LRS's storeEnv): resolves { code, signal, stdout,
// stderr, log } (log: the JSON lines of stderr, parsed). `input`: written
// to its stdin, which is then closed (stdin is a pipe, never a terminal).

const fs = require('node:fs')
const path = require('node:path')
const { spawn } = require('node:child_process')

const LRS = path.join(__dirname, '..', '..', 'bin', 'lrs.js')

// On Linux the command gets SIGTERM when the test file's process dies: a
// file that runs past its time is killed, and an `lrs import` it started
// ran on for an hour, waiting on a FerretDB long gone (as tools/ferretdb.js
// does for the server). setpriv execs the command: the pid is node's.
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((f) => process.platform === 'linux' && fs.existsSync(f))
const command = (args) => SETPRIV ? [SETPRIV, ['--pdeathsig', 'TERM', '--', process.execPath, LRS, ...args]] : [process.execPath, [LRS, ...args]]

function runLrs (args, storeEnv = {}, { input = '', env = {}, onStdout } = {}) {
  // MONGODB_URI: '' first, so a SQLite store in the mongodb run names no MongoDB
  const [file, argv] = command(args)
  const child = spawn(file, argv, { env: { ...process.env, MONGODB_URI: '', ...storeEnv, LRS_LOG_LEVEL: 'error', ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => { stdout += d; if (onStdout) onStdout(stdout) })
  child.stderr.on('data', (d) => { stderr += d })
  child.stdin.end(input)
  const done = new Promise((resolve) => child.on('close', (code, signal) => {
    const log = stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
    resolve({ code, signal, stdout, stderr, log })
  }))
  return Object.assign(done, { child })
}

module.exports = { runLrs, LRS }
