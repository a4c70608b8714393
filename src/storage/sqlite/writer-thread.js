'use strict'

// The SQLite writer as a thread of one process (writer.js starts it), so
// that inserts, index upkeep and the fsync of every commit never hold up
// that process's event loop. Used where one process stands alone: `node
// src/server.js`, the CLIs, the tests. Under PM2 every worker sends its
// writes to the host's one writer process instead (writer-process.js).

const { parentPort, workerData } = require('node:worker_threads')
const { createWriterLoop } = require('./writer-loop')

const loop = createWriterLoop({ ...workerData, shared: true }, {
  warn: (warning, error) => parentPort.postMessage({ warning, error }),
  info: (info, fields) => parentPort.postMessage({ info, fields })
})
const reply = (replies) => parentPort.postMessage(replies)

parentPort.on('message', (message) => {
  if (message === 'close') {
    loop.close()
    parentPort.close()
    return
  }
  loop.push(message, reply)
})

parentPort.postMessage('ready')
