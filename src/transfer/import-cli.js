'use strict'

// Kept for bench/bulk-load.js, which runs this file with node's
// --max-semi-space-size: it is `lrs import` (src/cli/import.js) with the
// same arguments. New callers run `node bin/lrs.js import`.

const { main } = require('../cli')

main(['import', ...process.argv.slice(2)], { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr })
  .then((code) => { process.exitCode = code })
