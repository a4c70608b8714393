#!/usr/bin/env node
'use strict'

// `lrs`: the LRS's command line (src/cli/). The process's streams and
// environment are handed in here, so nothing under src/ reads process.env
// but src/config.js.

const { main } = require('../src/cli')

main(process.argv.slice(2), { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr })
  .then((code) => { process.exitCode = code })
