'use strict'

// Runs `node bin/lrs.js ARGS` as a real process against a store (its env
// from freshStore or an LRS's storeEnv): resolves { code, signal, stdout,
// stderr, log } (log: the JSON lines of stderr, parsed). `input`: written
// to its stdin, which is then closed (stdin is a pipe, never a terminal).

const path = require('node:path')
const { spawn } = require('node:child_process')
const { diesWithParent } = require('../../tools/dies-with-parent')

const LRS = path.join(__dirname, '..', '..', 'bin', 'lrs.js')

function runLrs (args, storeEnv = {}, { input = '', env = {}, onStdout } = {}) {
  // MONGODB_URI: '' first, so a SQLite store in the mongodb run names no
  // MongoDB. It dies with the test file's process: a file that ran past its
  // time was killed, and an `lrs import` it had started ran on, waiting on a
  // FerretDB long gone.
  const child = spawn(...diesWithParent(process.execPath, [LRS, ...args]), { env: { ...process.env, MONGODB_URI: '', ...storeEnv, LRS_LOG_LEVEL: 'error', ...env } })
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
