'use strict'

// Starts a local MongoDB-compatible server keeping its data in a folder, so a
// fresh machine runs the LRS with no database to install: `mongod` from PATH if
// there is one, otherwise FerretDB with its SQLite backend.

const fs = require('node:fs')
const net = require('node:net')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const { ensureFerretDB } = require('./ferretdb-binary')

function findOnPath (name) {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || null
  } catch {
    return null
  }
}

function commandFor ({ dataDir, port }) {
  const mongod = process.env.LRS_EMBEDDED_ENGINE === 'ferretdb' ? null : findOnPath('mongod')
  if (mongod) {
    return { engine: 'mongod', file: mongod, args: ['--dbpath', dataDir, '--bind_ip', '127.0.0.1', '--port', String(port)] }
  }
  const file = ensureFerretDB({ log: (m) => process.stderr.write(m + '\n') })
  return {
    engine: 'ferretdb',
    file,
    args: [
      '--handler=sqlite',
      `--sqlite-url=file:${dataDir}/`,
      `--state-dir=${dataDir}`,
      `--listen-addr=127.0.0.1:${port}`,
      '--debug-addr=-', // no metrics listener: several embedded servers may run side by side
      '--telemetry=disable',
      '--log-level=error',
      '--log-format=json'
    ]
  }
}

function waitForPort (port, { timeoutMs, child }) {
  const deadline = Date.now() + timeoutMs
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (child.exitCode !== null) return reject(new Error(`embedded database exited with code ${child.exitCode}`))
      const socket = net.connect(port, '127.0.0.1')
      socket.once('connect', () => { socket.destroy(); resolve() })
      socket.once('error', () => {
        socket.destroy()
        if (Date.now() > deadline) return reject(new Error(`embedded database not listening on ${port} after ${timeoutMs} ms`))
        setTimeout(attempt, 50)
      })
    }
    attempt()
  })
}

// On Linux the database gets SIGTERM when the process that started it dies,
// even by kill -9 (setpriv execs the database, so the pid stays its own).
// Otherwise an orphan would keep the port and the data folder, and PM2's
// restart of the embedded database app would fail over and over.
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((f) => process.platform === 'linux' && fs.existsSync(f))

function spawnTiedToParent (file, args, options) {
  if (!SETPRIV) return spawn(file, args, options)
  return spawn(SETPRIV, ['--pdeathsig', 'TERM', '--', file, ...args], options)
}

async function startEmbeddedDatabase ({ dataDir, port, timeoutMs = 30000, stdio = 'inherit' }) {
  const dir = path.resolve(dataDir)
  fs.mkdirSync(dir, { recursive: true })
  const { engine, file, args } = commandFor({ dataDir: dir, port })
  const child = spawnTiedToParent(file, args, { stdio: ['ignore', stdio, stdio] })
  await waitForPort(port, { timeoutMs, child })
  return {
    engine,
    uri: `mongodb://127.0.0.1:${port}/`,
    pid: child.pid,
    child,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    })
  }
}

module.exports = { startEmbeddedDatabase }
