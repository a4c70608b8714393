'use strict'

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const net = require('node:net')
const { spawn } = require('node:child_process')
const { freePort } = require('../helpers/free-port')

const alive = (pid) => fs.existsSync(`/proc/${pid}`) && !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'))
const accepts = (port) => new Promise((resolve) => {
  const socket = net.connect(port, '127.0.0.1', () => { socket.destroy(); resolve(true) })
  socket.on('error', () => resolve(false))
})

// PM2 restarts the embedded database app when it dies; a database left
// running by a killed parent would hold the port and the data folder.
test('the embedded database stops when the process that started it is killed with SIGKILL', { skip: process.platform !== 'linux' }, async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-embedded-'))
  const port = await freePort()
  const parent = spawn(process.execPath, ['-e', `
    require(${JSON.stringify(path.join(__dirname, '../../src/storage/embedded/embedded-database'))})
      .startEmbeddedDatabase({ dataDir: ${JSON.stringify(dataDir)}, port: ${port}, timeoutMs: 300000, stdio: 'ignore' })
      .then((db) => process.stdout.write(db.pid + '\\n'))
    setInterval(() => {}, 1000)`], { stdio: ['ignore', 'pipe', 'inherit'] })
  let dbPid
  t.after(() => {
    if (dbPid && alive(dbPid)) process.kill(dbPid, 'SIGKILL')
    if (parent.exitCode === null) parent.kill('SIGKILL')
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  dbPid = Number(await new Promise((resolve) => parent.stdout.once('data', (d) => resolve(String(d).trim()))))
  assert.ok(alive(dbPid))
  assert.equal(await accepts(port), true)

  parent.kill('SIGKILL')
  const deadline = Date.now() + 10000
  while (alive(dbPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  assert.equal(alive(dbPid), false, 'the database outlived its parent')
  assert.equal(await accepts(port), false)
})
