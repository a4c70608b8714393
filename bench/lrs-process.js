'use strict'

// Starts what a benchmark measures the README way: the LRS under
// pm2-runtime in cluster mode, on a store from store.js. Everything binds
// to 127.0.0.1 and is stopped by the caller.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const { freePort } = require('../tools/free-port')

const ROOT = path.join(__dirname, '..')


// Ready means every worker is: PM2 starts them one after the other (each
// waits for the previous one's ready signal), and the first answers
// /health/ready long before the last has started, so a measurement begun
// then would run on fewer workers. PM2 marks a worker online only once it
// signalled ready (wait_ready).
async function waitReady (url, { pm2Home, instances, timeoutMs }) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url + '/health/ready')).ok && onlineWorkers(pm2Home) >= instances) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`LRS not ready at ${url} with ${instances} workers within ${timeoutMs} ms`)
}

function onlineWorkers (pm2Home) {
  return pm2Processes(pm2Home).filter((p) => p.name === 'lrs' && p.status === 'online').length
}

// What PM2 runs under `pm2Home`: { name, pid, status, restarts } per
// process, every app of ecosystem.config.js (the `lrs` workers and any
// other app beside them).
function pm2Processes (pm2Home) {
  const out = execFileSync(process.execPath, [path.join(ROOT, 'node_modules/pm2/bin/pm2'), 'jlist'], { env: { ...process.env, PM2_HOME: pm2Home }, encoding: 'utf8' })
  const list = JSON.parse(out.slice(out.indexOf('[')))
  return list.map((p) => ({ name: p.name, pid: p.pid, status: p.pm2_env.status, restarts: p.pm2_env.restart_time }))
}

function instanceCount (setting) {
  if (!setting || setting === 'max') return os.cpus().length
  const n = Number(setting)
  return n > 0 ? n : Math.max(1, os.cpus().length + n)
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
  await waitReady(url, { pm2Home, instances: instanceCount(env.LRS_INSTANCES || process.env.LRS_INSTANCES), timeoutMs: 60000 })
  return {
    url,
    pid: child.pid,
    pm2Home,
    workerPids: () => childPids(child.pid).filter((pid) => commandLine(pid).includes('src/server.js')),
    // Every process of the named PM2 apps, from `pm2 jlist` (a CLI run:
    // call it between measurements, not in a sampling loop).
    appProcesses: (names) => pm2Processes(pm2Home).filter((p) => names.includes(p.name) && p.pid),
    // the SQLite engine's writer process (PM2 app lrs-writer), or null
    writerPid: () => (pm2Processes(pm2Home).find((p) => p.name === 'lrs-writer' && p.pid) || { pid: null }).pid,
    async stop () {
      if (child.exitCode === null && child.signalCode === null) { // not ended (a kill -9 leaves exitCode null)
        await new Promise((resolve) => {
          child.once('exit', resolve)
          child.kill('SIGINT')
        })
      }
      fs.rmSync(pm2Home, { recursive: true, force: true })
    }
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

// A process's /proc file `name`, or that of its thread `tid`.
const procFile = (pid, tid, name) => fs.readFileSync(tid === undefined ? `/proc/${pid}/${name}` : `/proc/${pid}/task/${tid}/${name}`, 'utf8')

// CPU seconds (user + system) a process has used, from /proc.
// `tid`: of that thread of the process only.
function cpuSeconds (pid, tid) {
  try {
    const fields = procFile(pid, tid, 'stat').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

// Bytes a process (or its thread `tid`) has handed to write calls, from
// /proc (wchar): a SQLite writer's journal, checkpoints and its replies.
// 0 where /proc has none.
function bytesWritten (pid, tid) {
  try {
    return Number(/^wchar: (\d+)$/m.exec(procFile(pid, tid, 'io'))[1])
  } catch {
    return 0
  }
}

// Resident memory of processes together (MiB), from /proc.
function rssMiB (pids) {
  let kB = 0
  for (const pid of pids) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
      if (m) kB += Number(m[1])
    } catch {}
  }
  return kB / 1024
}

module.exports = { startLrs, cpuSeconds, bytesWritten, rssMiB }
