'use strict'

// Several LRS hosts on one machine, as a user runs them on several: each
// host is a Linux network namespace of its own with one address, running
// `npm start` (PM2 cluster mode) there, and one FerretDB, in a namespace of
// its own too, serves them all over a bridge. The test process reaches the
// hosts and the database through one veth pair into that bridge; nothing is
// routed anywhere else (no default route in any namespace made here).
//
//   root ns   <tag>r 10.231.N.254 ──┐
//   <tag>-lan br0 10.231.N.1 (FerretDB listens here)
//   <tag>-h1  eth0 10.231.N.11 ─────┤  each host: PM2, its workers, LRS_DATA_DIR
//   <tag>-h2  eth0 10.231.N.12 ─────┘
//
// Everything is torn down on every exit path: close(), the process's exit
// (even after an uncaught error), SIGINT/SIGTERM; processes started here get
// SIGTERM if this process dies by kill -9 (setpriv --pdeathsig), and the
// namespaces and links of a run whose process is gone are removed by the
// next run (their names carry its pid).

const fs = require('node:fs')
const os = require('node:os')
const net = require('node:net')
const path = require('node:path')
const { spawn, execFileSync } = require('node:child_process')
const { diesWithParent } = require('../../tools/dies-with-parent')
const { ferretdbCommand } = require('../../tools/ferretdb')

const REPO = path.resolve(__dirname, '../..')
const PREFIX = 'lh' // every namespace and link made here starts with it, then the pid
const DB_PORT = 27017
const LRS_PORT = 8080
const ADMIN = { user: 'admin', password: 'hosts-secret' }

function ip (...args) {
  return execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString()
}

function quietly (fn) {
  try { return fn() } catch { return null }
}

// Whether this machine lets a test make namespaces: { ok, reason }.
function hostsAvailable () {
  if (process.platform !== 'linux') return { ok: false, reason: 'network namespaces are Linux\'s' }
  if (typeof process.getuid === 'function' && process.getuid() !== 0) return { ok: false, reason: 'making network namespaces needs root' }
  const probe = `${PREFIX}${process.pid}-probe`
  try {
    ip('netns', 'add', probe)
    ip('netns', 'del', probe)
    return { ok: true }
  } catch (err) {
    quietly(() => ip('netns', 'del', probe))
    return { ok: false, reason: `could not make a network namespace (${String(err.stderr || err.message).trim()})` }
  }
}

const alive = (pid) => { try { process.kill(pid, 0); return true } catch (err) { return err.code === 'EPERM' } }

// Namespaces and links left by runs whose process is gone.
function removeStale () {
  const owner = (name) => { const m = new RegExp(`^${PREFIX}(\\d+)`).exec(name); return m ? Number(m[1]) : null }
  for (const line of (quietly(() => ip('netns', 'list')) || '').split('\n')) {
    const name = line.split(' ')[0]
    const pid = owner(name)
    if (pid && pid !== process.pid && !alive(pid)) quietly(() => ip('netns', 'del', name))
  }
  for (const line of (quietly(() => ip('-o', 'link', 'show')) || '').split('\n')) {
    const name = (/^\d+: ([^:@]+)/.exec(line) || [])[1]
    const pid = name && owner(name)
    if (pid && pid !== process.pid && !alive(pid)) quietly(() => ip('link', 'del', name))
  }
}

// A /24 of 10.231.0.0/16 that no address of the root namespace is in.
function freeSubnet () {
  const used = quietly(() => ip('-o', '-4', 'addr', 'show')) || ''
  for (let i = 0; i < 254; i++) {
    const n = (process.pid + i) % 254 + 1
    if (!used.includes(` 10.231.${n}.`)) return `10.231.${n}`
  }
  throw new Error('no free subnet in 10.231.0.0/16')
}

function waitForPort (host, port, { within, exited }) {
  const deadline = Date.now() + within
  return new Promise((resolve, reject) => {
    const attempt = () => {
      if (exited()) return reject(new Error(`the process meant to listen on ${host}:${port} exited`))
      const socket = net.connect(port, host)
      socket.once('connect', () => { socket.destroy(); resolve() })
      socket.once('error', () => {
        socket.destroy()
        if (Date.now() > deadline) return reject(new Error(`nothing listens on ${host}:${port} after ${within} ms`))
        setTimeout(attempt, 100)
      })
    }
    attempt()
  })
}

async function waitReady (url, { within, exited }) {
  const deadline = Date.now() + within
  for (;;) {
    if (exited()) throw new Error(`the host at ${url} exited before it was ready`)
    try {
      const res = await fetch(url + '/health/ready', { signal: AbortSignal.timeout(2000) })
      if (res.status === 200) return
    } catch {}
    if (Date.now() > deadline) throw new Error(`${url} not ready after ${within} ms`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

// A process in namespace `ns`, in a process group of its own (kill(-pid)
// reaches its whole tree), that gets SIGTERM if this process dies.
function spawnIn (ns, command, args, { env, cwd, logFile }) {
  const out = fs.openSync(logFile, 'a')
  const [file, argv] = diesWithParent('ip', ['netns', 'exec', ns, command, ...args])
  const child = spawn(file, argv, { cwd, env, detached: true, stdio: ['ignore', out, out] })
  fs.closeSync(out)
  const state = { exited: false }
  const exited = new Promise((resolve) => child.once('exit', () => { state.exited = true; resolve() }))
  return { child, pid: child.pid, exited, hasExited: () => state.exited }
}

async function stopGroup (proc, { signal = 'SIGTERM', graceMs = 15000 } = {}) {
  if (!proc || proc.hasExited()) return
  try { process.kill(-proc.pid, signal) } catch {}
  const timer = setTimeout(() => { try { process.kill(-proc.pid, 'SIGKILL') } catch {} }, graceMs)
  await proc.exited
  clearTimeout(timer)
  // what the group leader left (a worker exiting after its master)
  try { process.kill(-proc.pid, 'SIGKILL') } catch {}
}

// `count` hosts of `workers` workers each on one new FerretDB database.
// `env`: settings for every host; `hostEnv(i)`: more for host i (1-based).
// `prepare({ rootAddress, db })`, when given, runs once the network and the
// database are up and before any host starts (to start what the hosts
// will reach at the test process's address, rootAddress); what it returns
// ({ env, hostEnv }) is added to those.
async function startHosts ({ count = 3, workers = 2, env = {}, hostEnv = () => ({}), prepare = null, startWithin = 90000 } = {}) {
  removeStale()
  const tag = `${PREFIX}${process.pid}`
  const net24 = freeSubnet()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-hosts-'))
  const lan = `${tag}-lan`
  const namespaces = [lan]
  const links = [`${tag}r`]
  const procs = new Set()
  let closed = false

  function teardownNow () {
    if (closed) return
    closed = true
    for (const p of procs) { try { process.kill(-p.pid, 'SIGKILL') } catch {} }
    for (const ns of namespaces) quietly(() => ip('netns', 'del', ns))
    for (const link of links) quietly(() => ip('link', 'del', link))
    fs.rmSync(dir, { recursive: true, force: true })
  }
  const onSignal = (signal) => { teardownNow(); process.kill(process.pid, signal) }
  process.once('exit', teardownNow)
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)

  try {
    ip('netns', 'add', lan)
    ip('-n', lan, 'link', 'set', 'lo', 'up')
    ip('-n', lan, 'link', 'add', 'br0', 'type', 'bridge')
    ip('-n', lan, 'addr', 'add', `${net24}.1/24`, 'dev', 'br0')
    ip('-n', lan, 'link', 'set', 'br0', 'up')
    ip('link', 'add', `${tag}r`, 'type', 'veth', 'peer', 'name', 'up0', 'netns', lan)
    ip('-n', lan, 'link', 'set', 'up0', 'master', 'br0', 'up')
    ip('addr', 'add', `${net24}.254/24`, 'dev', `${tag}r`)
    ip('link', 'set', `${tag}r`, 'up')

    // The database: FerretDB in the lan namespace, its files on this side.
    const dbDir = path.join(dir, 'ferretdb')
    fs.mkdirSync(dbDir)
    const dbAddress = `${net24}.1`
    const db = {
      address: dbAddress,
      uri: `mongodb://${dbAddress}:${DB_PORT}/`,
      name: 'lrs_hosts_' + process.pid,
      proc: null,
      async start () {
        const { file, args } = ferretdbCommand({ dataDir: dbDir, listen: `${dbAddress}:${DB_PORT}` })
        const proc = spawnIn(lan, file, args, { env: process.env, cwd: dbDir, logFile: path.join(dir, 'ferretdb.log') })
        procs.add(proc)
        proc.exited.then(() => procs.delete(proc))
        db.proc = proc
        await waitForPort(dbAddress, DB_PORT, { within: 30000, exited: proc.hasExited })
      },
      // The natural outage: FerretDB stopped; started again on the same files.
      async stop () {
        await stopGroup(db.proc)
        db.proc = null
      }
    }
    await db.start()
    const rootAddress = `${net24}.254`
    const more = prepare ? await prepare({ rootAddress, db }) : {}
    const envOf = (i) => ({ ...env, ...(more.env || {}), ...hostEnv(i), ...(more.hostEnv ? more.hostEnv(i) : {}) })

    const hosts = []
    for (let i = 1; i <= count; i++) {
      const ns = `${tag}-h${i}`
      const link = `${tag}h${i}`
      namespaces.push(ns)
      ip('netns', 'add', ns)
      ip('-n', ns, 'link', 'set', 'lo', 'up')
      ip('link', 'add', link, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns)
      ip('link', 'set', link, 'netns', lan)
      ip('-n', lan, 'link', 'set', link, 'master', 'br0', 'up')
      ip('-n', ns, 'addr', 'add', `${net24}.${10 + i}/24`, 'dev', 'eth0')
      ip('-n', ns, 'link', 'set', 'eth0', 'up')
      hosts.push(makeHost({ i, ns, address: `${net24}.${10 + i}`, dir: path.join(dir, `h${i}`), db, env: envOf(i), workers, procs }))
    }
    await Promise.all(hosts.map((h) => h.start({ within: startWithin })))

    return {
      hosts,
      db,
      dir,
      rootAddress,
      admin: ADMIN,
      async close () {
        if (closed) return
        await Promise.all(hosts.map((h) => h.stop()))
        await db.stop()
        // LRS_TEST_HOSTS_LOGS=<folder>: the hosts' logs are kept there (they go with the rest otherwise)
        if (process.env.LRS_TEST_HOSTS_LOGS) {
          fs.mkdirSync(process.env.LRS_TEST_HOSTS_LOGS, { recursive: true })
          for (const h of hosts) fs.copyFileSync(h.logFile, path.join(process.env.LRS_TEST_HOSTS_LOGS, `${h.name}.log`))
          quietly(() => fs.copyFileSync(path.join(dir, 'ferretdb.log'), path.join(process.env.LRS_TEST_HOSTS_LOGS, 'ferretdb.log')))
        }
        teardownNow()
        process.removeListener('exit', teardownNow)
        process.removeListener('SIGINT', onSignal)
        process.removeListener('SIGTERM', onSignal)
      }
    }
  } catch (err) {
    teardownNow()
    process.removeListener('exit', teardownNow)
    process.removeListener('SIGINT', onSignal)
    process.removeListener('SIGTERM', onSignal)
    throw err
  }
}

function makeHost ({ i, ns, address, dir, db, env, workers, procs }) {
  fs.mkdirSync(dir, { recursive: true })
  const logFile = path.join(dir, 'lrs.log')
  const hostEnv = {
    ...process.env,
    PATH: process.env.PATH,
    PORT: String(LRS_PORT),
    HOST: '0.0.0.0',
    MONGODB_URI: db.uri,
    MONGODB_DB: db.name,
    LRS_DATA_DIR: path.join(dir, 'data'),
    PM2_HOME: path.join(dir, 'pm2'),
    LRS_INSTANCES: String(workers),
    LRS_ADMIN_USER: ADMIN.user,
    LRS_ADMIN_PASSWORD: ADMIN.password,
    LRS_LOG_LEVEL: 'warn',
    LRS_LOG_FORMAT: 'json',
    npm_config_update_notifier: 'false',
    ...env
  }
  for (const k of ['LRS_TEST_ENGINE', 'LRS_TEST_DATA_ROOT', 'NODE_TEST_CONTEXT']) delete hostEnv[k]
  const host = {
    name: `h${i}`,
    ns,
    address,
    url: `http://${address}:${LRS_PORT}`,
    logFile,
    proc: null,
    // `env`: settings changed from now on (undefined: removed)
    async start ({ within = 90000, env = {} } = {}) {
      for (const [k, v] of Object.entries(env)) {
        if (v === undefined) delete hostEnv[k]
        else hostEnv[k] = v
      }
      const proc = spawnIn(ns, 'npm', ['start', '--silent'], { env: hostEnv, cwd: REPO, logFile })
      procs.add(proc)
      proc.exited.then(() => procs.delete(proc))
      host.proc = proc
      await waitReady(host.url, { within, exited: proc.hasExited })
    },
    // kill -9 of the host's whole process tree: a host lost.
    async kill () {
      await stopGroup(host.proc, { signal: 'SIGKILL' })
      host.proc = null
    },
    async stop () {
      await stopGroup(host.proc)
      host.proc = null
    },
    // The host's network loses the database (packets to it go nowhere), and gets it back.
    cutOff () { ip('-n', ns, 'route', 'add', 'blackhole', `${db.address}/32`) },
    reconnect () { ip('-n', ns, 'route', 'del', 'blackhole', `${db.address}/32`) },
    log () { return quietly(() => fs.readFileSync(logFile, 'utf8')) || '' }
  }
  return host
}

module.exports = { startHosts, hostsAvailable, ADMIN }
