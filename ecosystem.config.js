'use strict'

// PM2: the LRS in cluster mode, one worker per core by default
// (LRS_INSTANCES). Workers share nothing but the store: the SQLite file in
// LRS_DATA_DIR, or MongoDB.

const { loadConfig } = require('./src/config')

const config = loadConfig()

module.exports = {
  apps: [{
    name: 'lrs',
    script: 'src/server.js',
    exec_mode: 'cluster',
    instances: config.instances === 'max' ? 'max' : Number(config.instances),
    wait_ready: true, // the worker calls process.send('ready') once it listens
    listen_timeout: 30000,
    // Above the graceful shutdown bound, so a worker always flushes its
    // write batcher before PM2 would kill it.
    kill_timeout: config.shutdownTimeoutMs + 5000,
    autorestart: true,
    // A batch's statements live until the database acknowledges them (tens
    // of ms). With V8's small default young generation they outlive a
    // scavenge or two and are copied, then promoted and marked: at batch 20
    // the larger young generation cut worker CPU per statement by ~7 %.
    node_args: ['--max-semi-space-size=64', '--min-semi-space-size=32'],
    max_memory_restart: '1G',
    env: { NODE_ENV: 'production' }
  }]
}
