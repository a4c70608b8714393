'use strict'

// A forwarding target in a process of its own (bench/forward-receiver.js),
// driven over IPC: an upstream LRS or a webhook receiver that checks every
// signature, goes down and up on command, and reports what arrived.

const path = require('node:path')
const crypto = require('node:crypto')
const { fork } = require('node:child_process')

async function startTarget (kind) {
  const child = fork(path.join(__dirname, 'forward-receiver.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  const waiting = new Map()
  let seq = 0
  child.on('message', (msg) => {
    const w = waiting.get(msg.seq)
    if (!w) return
    waiting.delete(msg.seq)
    if (msg.error) w.reject(new Error(`receiver: ${msg.error}`))
    else w.resolve(msg)
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.once('exit', (code) => { for (const w of waiting.values()) w.reject(new Error(`receiver exited (${code})`)) })
  const call = (cmd, extra = {}) => new Promise((resolve, reject) => {
    const n = ++seq
    waiting.set(n, { resolve, reject })
    child.send({ seq: n, cmd, ...extra })
  })
  const secret = kind === 'webhook' ? 'whsec_' + crypto.randomBytes(32).toString('base64') : null
  const { port } = await call('listen', { kind, secret })
  return {
    kind,
    secret,
    pid: child.pid,
    url: kind === 'webhook' ? `http://127.0.0.1:${port}/hooks/xapi` : `http://up:pw@127.0.0.1:${port}/xapi`,
    down: async () => (await call('down')).at,
    up: async () => (await call('up')).at,
    expect: (ids) => call('expect', { ids }),
    missing: async () => (await call('missing')).missing,
    report: () => call('report'),
    async stop () {
      if (child.exitCode !== null || child.signalCode !== null) return
      await call('stop').catch(() => {})
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(timer)
    }
  }
}

module.exports = { startTarget }
