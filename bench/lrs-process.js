'use strict'

// Starts what a benchmark measures the README way: the LRS under
// pm2-runtime in cluster mode, on a store from store.js. Everything binds
// to 127.0.0.1 and is stopped by the caller.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const { freePort } = require('../test/support/free-port')

const ROOT = path.join(__dirname, '..')


async function waitReady (url, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url + '/health/ready')).ok) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`LRS not ready at ${url} within ${timeoutMs} ms`)
}

async function startLrs ({ store, env = {} }) {
  const port = await freePort()
  const pm2Home = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-bench-pm2-'))
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/pm2/bin/pm2-runtime'), 'start', 'ecosystem.config.js'], {
    cwd: ROOT,
    stdio: ['ignore', process.env.BENCH_TRACE ? 'inherit' : 'ignore', 'inherit'],
    env: {
      ...process.env,
      PM2_HOME: pm2Home,
      PORT: String(port),
      HOST: '127.0.0.1',
      LRS_LOG_LEVEL: process.env.LRS_LOG_LEVEL || 'warn',
      ...store.lrsEnv,
      LRS_ADMIN_USER: 'bench',
      LRS_ADMIN_PASSWORD: 'bench-secret',
      ...env
    }
  })
  const url = `http://127.0.0.1:${port}`
  await waitReady(url, 60000)
  return {
    url,
    pid: child.pid,
    pm2Home,
    workerPids: () => childPids(child.pid).filter((pid) => commandLine(pid).includes('src/server.js')),
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', resolve)
      child.kill('SIGINT')
    })
  }
}

function childPids (pid) {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number)
  } catch { return [] }
}

function commandLine (pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')
  } catch { return '' }
}

// CPU seconds (user + system) a process has used, from /proc.
function cpuSeconds (pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

module.exports = { startLrs, cpuSeconds, childPids, commandLine }
