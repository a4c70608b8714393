'use strict'

// The host's one SQLite writer (PM2 app `lrs-writer`, ecosystem.config.js).
// Every HTTP worker sends its writes here over a Unix socket
// (writer-client.js) and this process commits the writes of all workers
// together, one transaction after another. One writer per file means no
// worker ever waits for another's write lock or retries a busy commit:
// with a writer thread in each of 16 workers, measured, ingest fell from
// 8,064 statements/s at 2 workers to 6,094 at 16, the same statements
// costing 3.4 times the CPU.
//
// A write is answered only once its transaction has committed. On SIGINT
// or SIGTERM (pm2 reload, stop) the writer tells its workers it is going,
// commits what it has, answers writes that arrive after that with "send
// again" (the workers hold them until the next writer is up) and exits:
// nothing in flight fails. Killed outright, the writes in flight get 503
// from their workers (none of them was acknowledged) and PM2 starts
// another writer, which the workers reconnect to.

const fs = require('node:fs')
const net = require('node:net')
const { loadConfig } = require('../../config')
const { StartupError, EXIT_STARTUP, exitAfterStartFailure } = require('../../errors')
const { createLogger } = require('../../logger')
const { openDatabase, databaseFile, storeProblem } = require('./open')
const { makeSchema } = require('./schema')
const { createWriterLoop } = require('./writer-loop')
const { writerSocketPaths, sendFrame, readFrames } = require('./writer-socket')

// Writes that arrive once the writer is closing are sent back for this
// long; then the connections close.
const CLOSING_GRACE_MS = 100
// Past the workers' own shutdown grace (LRS_SHUTDOWN_GRACE_MS), the time
// they take to flush their batchers and disconnect.
const LINGER_MARGIN_MS = 1000

function prepareStore (dataDir, logger) {
  const db = openDatabase(dataDir)
  try {
    makeSchema(db, logger)
  } catch (err) {
    throw storeProblem(databaseFile(dataDir), err)
  } finally {
    db.close()
  }
}

// A socket file left by a writer that died is removed; one that answers
// belongs to a live writer, and a second writer for the same file is an
// operator's mistake worth stopping at.
function claimSocket (socketPath) {
  return new Promise((resolve, reject) => {
    const probe = net.createConnection(socketPath)
    probe.once('connect', () => {
      probe.destroy()
      reject(new StartupError(`another writer serves this store (${socketPath})`))
    })
    probe.once('error', (err) => {
      try {
        if (err.code !== 'ENOENT') fs.rmSync(socketPath, { force: true })
      } catch {} // not a file it can remove: listen will say
      resolve()
    })
  })
}

// Listens on the first of the store's socket paths that takes it
// (writer-socket.js), after making sure no live writer answers on any.
async function listenOnSocket (server, paths, logger) {
  for (const socketPath of paths) await claimSocket(socketPath)
  const failures = []
  for (const socketPath of paths) {
    try {
      await new Promise((resolve, reject) => {
        server.once('error', reject)
        server.listen(socketPath, () => {
          server.off('error', reject)
          resolve()
        })
      })
      if (failures.length) logger.warn({ socket: socketPath, failed: failures }, 'SQLite writer: the data folder cannot hold its socket; listening in the temporary folder')
      return socketPath
    } catch (err) {
      failures.push(`${socketPath}: ${err.code || err.message}`)
    }
  }
  throw new StartupError(`the SQLite writer cannot listen on a Unix socket (${failures.join('; ')}); set LRS_WRITER_SOCKET to a path on a local file system`)
}

async function startWriterProcess (config, logger) {
  prepareStore(config.dataDir, logger)
  const paths = writerSocketPaths(config.dataDir, config.writerSocket)
  const loop = createWriterLoop({ dataDir: config.dataDir, shared: false, oneWriter: true }, {
    warn: (message, error) => logger.warn({ err: error }, message),
    info: (message, fields) => logger.info(fields, message)
  })
  const connections = new Set()
  let closing = false

  const server = net.createServer((socket) => {
    connections.add(socket)
    socket.on('close', () => connections.delete(socket))
    socket.on('error', (err) => logger.debug({ err }, 'writer connection error'))
    const reply = (replies) => { if (!socket.destroyed) sendFrame(socket, { replies }) }
    readFrames(socket, (message) => {
      if (closing) reply([{ id: message.id, retry: true }])
      else loop.push(message, reply)
    })
  })
  let socketPath
  try {
    socketPath = await listenOnSocket(server, paths, logger)
  } catch (err) {
    loop.close()
    throw err
  }
  logger.info({ file: databaseFile(config.dataDir), socket: socketPath }, 'SQLite writer ready')

  // `lingerMs`: how long the writer goes on serving the workers still
  // connected. When PM2 stops everything, workers flush their write
  // batchers during their own grace period and then disconnect: the writer
  // must outlive them (PM2 signals every app at once). When only the
  // writer is replaced, the workers stay: it serves them until the
  // deadline, and the next writer starts right after.
  async function close ({ lingerMs = 0 } = {}) {
    const deadline = Date.now() + lingerMs
    while (connections.size && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
    closing = true
    server.close()
    for (const socket of connections) sendFrame(socket, { closing: true })
    loop.close() // commits and answers what was queued
    await new Promise((resolve) => setTimeout(resolve, CLOSING_GRACE_MS))
    for (const socket of connections) socket.end()
    fs.rmSync(socketPath, { force: true })
  }
  return { socketPath, close }
}

async function main () {
  const config = loadConfig()
  const logger = createLogger(config)
  const writer = await startWriterProcess(config, logger)
  if (process.send) process.send('ready') // PM2 wait_ready
  let stopping = false
  const shutdown = (signal) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'SQLite writer shutting down')
    writer.close({ lingerMs: config.shutdownGraceMs + LINGER_MARGIN_MS }).then(() => logger.flush(() => process.exit(0)), (err) => {
      logger.error({ err }, 'SQLite writer shutdown failed')
      logger.flush(() => process.exit(1))
    })
  }
  process.once('SIGINT', () => shutdown('SIGINT'))
  process.once('SIGTERM', () => shutdown('SIGTERM'))
  process.on('message', (msg) => { if (msg === 'shutdown') shutdown('shutdown message') })
  // PM2 killed outright leaves this process behind, holding the socket, and
  // the writer of the next PM2 would refuse to start beside it: it goes too.
  process.once('disconnect', () => shutdown('parent process gone'))
}

if (require.main === module) {
  main().catch((err) => {
    const startup = err.name === 'StartupError'
    process.stderr.write(`SQLite writer failed to start: ${startup ? err.message : err.stack}\n`)
    exitAfterStartFailure(startup ? EXIT_STARTUP : 1)
  })
}

module.exports = { startWriterProcess }
