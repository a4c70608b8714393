#!/usr/bin/env node
'use strict'

// `lrs`: the LRS's command line (src/cli/). The process's streams and
// environment are handed in here, so nothing under src/ reads process.env
// but src/config.js.

const { main } = require('../src/cli')

// A reader that stops early (`lrs --help | head`, `lrs export | head`)
// closes the pipe: that ends the command quietly, not with a stack trace.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0)
  throw err
})

main(process.argv.slice(2), { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr })
  .then((code) => { process.exitCode = code })
