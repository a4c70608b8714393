'use strict'

// PM2: the LRS in cluster mode, one worker per core by default
// (LRS_INSTANCES). Workers share nothing but the store: the SQLite file in
// LRS_DATA_DIR, or MongoDB. On SQLite one more process, `lrs-writer`,
// owns the file's writes: every worker sends its writes to it
// (src/storage/sqlite/writer-process.js), so adding workers adds HTTP and
// validation capacity without adding writers that contend for one lock.

const crypto = require('node:crypto')
const { loadConfig } = require('./src/config')
const { EXIT_STARTUP } = require('./src/errors')

const config = loadConfig()
// A process that cannot start (bad configuration, a damaged store) exits
// with EXIT_STARTUP: PM2 leaves it stopped rather than restarting it in a
// loop, and pm2-runtime, with nothing left running, exits (non-zero), so a
// container shows the failure instead of looking up while serving nothing.
const stopExitCodes = [EXIT_STARTUP]
// Above the graceful shutdown bound, so a worker always flushes its write
// batcher, and the writer commits what it holds, before PM2 would kill it.
const killTimeout = config.shutdownTimeoutMs + 5000
// PM2 loads its metrics agent (@pm2/io) into every process unless told
// not to: timers in each process and a message to the daemon every
// second, for figures (event loop latency, heap) that /metrics has
// already. Measured on 2 cores with 8 idle workers, the daemon took 0.7 %
// of a core with it and 0.3 % without. `pm2 list` and `pm2 monit` still
// show each process's CPU and memory, which the daemon reads itself.
const pmx = false
const writerProcess = config.storage === 'sqlite' && config.sqliteWriter !== 'thread'
// The workers tell each other which Authorization headers they verified
// (src/auth/shared-verifications.js) by HMAC digests under a key drawn
// here, at each start, and held only in the workers' memory.
const authShareKey = config.authShareKey || crypto.randomBytes(32).toString('base64')

const writer = {
  name: 'lrs-writer',
  script: 'src/storage/sqlite/writer-process.js',
  exec_mode: 'fork',
  instances: 1,
  wait_ready: true, // it calls process.send('ready') once it listens
  listen_timeout: 30000,
  kill_timeout: killTimeout,
  autorestart: true,
  stop_exit_codes: stopExitCodes,
  pmx,
  env: { NODE_ENV: 'production' }
}

const workers = {
  name: 'lrs',
  script: 'src/server.js',
  exec_mode: 'cluster',
  instances: config.instances === 'max' ? 'max' : Number(config.instances),
  wait_ready: true, // the worker calls process.send('ready') once it listens
  listen_timeout: 30000,
  kill_timeout: killTimeout,
  autorestart: true,
  stop_exit_codes: stopExitCodes,
  // A batch's statements live until the database acknowledges them (tens
  // of ms). With V8's small default young generation they outlive a
  // scavenge or two and are copied, then promoted and marked: at batch 20
  // the larger young generation cut worker CPU per statement by ~7 %.
  // V8 collects with helper threads by default, as many as the machine has
  // cores for each worker: 16 workers on 16 cores ran 16 such pools side
  // by side, and the CPU per statement of the LRS doubled from 2 workers
  // to 16. With one GC thread per worker, measured on 16 cores (device
  // machine, commit af3f5c5, 64 connections): 16 workers ingested 19,705
  // statements/s at 246 µs of CPU each, against 16,715 / 18,126 at 398 /
  // 359 µs without (docs/benchmarks.md, Workers).
  // With a young generation that large, V8 began marking the old one
  // whenever less room was left under its limit than the young generation
  // holds, which was always (--trace-incremental-marking: every start at
  // ~28 MB of a ~105 MB limit): back-to-back mark-compacts, as many per
  // second whatever the load, so the fewer statements a worker takes the
  // more each statement pays (8 workers on 2 cores: 27-29 in 15 s, 6-10 s
  // of marking and pauses added up). A starting old-generation limit of
  // 192 MB leaves the room: 3.5 times fewer mark-compacts, and at 4,000
  // statements/s offered on the 2-core VM the workers' CPU per statement
  // fell in every one of nine alternations (8 workers by 4-27 %, 2 by 2-15
  // %), for 10-25 MiB more memory per worker.
  node_args: ['--max-semi-space-size=64', '--min-semi-space-size=32', '--initial-old-space-size=192', '--single-threaded-gc'],
  max_memory_restart: '1G',
  pmx,
  env: { NODE_ENV: 'production', LRS_AUTH_SHARE_KEY: authShareKey, ...(writerProcess && { LRS_SQLITE_WRITER: 'process' }) }
}

// The workers first: PM2 stops apps in this order, and a worker flushes its
// write batcher on the way out, which needs the writer still there (the
// other way round, workers logged a lost writer at every stop). At start
// the order does not matter: a worker waits for the writer's socket.
module.exports = { apps: writerProcess ? [workers, writer] : [workers] }
