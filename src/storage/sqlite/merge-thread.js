'use strict'

// The index merges of a SQLite store (index-merges.js) in a thread of
// their own, started by the writer loop (writer-loop.js): one SQLite file
// has one writer at a time, so the merges write only the index file
// (open.js) and run beside the writer instead of between its transactions.
// Measured on the 16-core machine, they were 29 % of the writer's time.

const { parentPort, workerData } = require('node:worker_threads')
const { createMergeLoop } = require('./merge-loop')

const loop = createMergeLoop(workerData, {
  warn: (warning, error) => parentPort.postMessage({ warning, error }),
  copied: () => parentPort.postMessage({ copied: true })
})

parentPort.on('message', (message) => {
  if (message === 'close') {
    loop.close()
    parentPort.close()
  } else if (message === 'wake') {
    loop.wake()
  }
})
