'use strict'

// A store that cannot be opened stops the start with one line that names
// the file and the cause, and an exit code PM2 does not restart, so that
// pm2-runtime exits instead of staying up with nothing listening.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { spawn, spawnSync } = require('node:child_process')
const { startLrs, freshStore, ENGINE } = require('../helpers/lrs')
const { statement } = require('../helpers/statements')

const skip = ENGINE !== 'sqlite' && 'a damaged file is the sqlite engine\'s'
const ROOT = path.join(__dirname, '../..')

function start (script, dataDir) {
  return spawnSync(process.execPath, [path.join(ROOT, script)], { env: { ...process.env, LRS_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LRS_LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 30000 })
}

// A store with statements, closed.
async function storeWithStatements () {
  const lrs = await startLrs()
  assert.equal((await lrs.client('/statements', { method: 'POST', body: Array.from({ length: 50 }, () => statement({ result: { response: 'r'.repeat(2000) } })) })).status, 200)
  await lrs.close()
  return path.join(lrs.config.dataDir, 'lrs.sqlite')
}

function assertRefused (run, file, cause) {
  assert.equal(run.status, 78, run.stderr)
  const lines = run.stderr.trim().split('\n')
  assert.equal(lines.length, 1, `one line, no stack: ${run.stderr}`)
  assert.ok(lines[0].includes(file), 'it names the file')
  assert.match(lines[0], cause)
  assert.match(lines[0], /restore it from a backup/)
}

test('random bytes, a broken header or a truncated file: the worker and the writer refuse to start, naming the file and the cause', { skip }, async () => {
  const random = freshStore().LRS_DATA_DIR
  fs.writeFileSync(path.join(random, 'lrs.sqlite'), require('node:crypto').randomBytes(100000))
  const header = await storeWithStatements()
  const fd = fs.openSync(header, 'r+')
  fs.writeSync(fd, Buffer.from('not a database!!'), 0, 16, 0)
  fs.closeSync(fd)
  const truncated = await storeWithStatements()
  fs.truncateSync(truncated, Math.floor(fs.statSync(truncated).size / 2))
  for (const [dir, cause] of [[random, /is damaged \(file is not a database\)/], [path.dirname(header), /is damaged \(file is not a database\)/], [path.dirname(truncated), /is damaged \(database disk image is malformed\)/]]) {
    const file = path.join(dir, 'lrs.sqlite')
    assertRefused(start('src/server.js', dir), file, cause)
    assertRefused(start('src/storage/sqlite/writer-process.js', dir), file, cause)
  }
})

test('a damaged index file: the LRS refuses to start, naming it and how to mend it; once it is removed, the LRS builds it again and finds every statement', { skip }, async () => {
  const file = await storeWithStatements()
  const dir = path.dirname(file)
  const index = path.join(dir, 'lrs-index.sqlite')
  for (const suffix of ['-wal', '-shm']) fs.rmSync(index + suffix, { force: true })
  fs.writeFileSync(index, require('node:crypto').randomBytes(100000))
  for (const script of ['src/server.js', 'src/storage/sqlite/writer-process.js']) {
    const run = start(script, dir)
    assert.equal(run.status, 78, run.stderr)
    assert.equal(run.stderr.trim().split('\n').length, 1, `one line, no stack: ${run.stderr}`)
    assert.ok(run.stderr.includes(index), 'it names the index file')
    assert.match(run.stderr, /is damaged \(file is not a database\): remove it .*builds it again from the statements/)
  }
  fs.rmSync(index)
  const lrs = await startLrs({ LRS_DATA_DIR: dir, MONGODB_URI: '' })
  assert.equal((await lrs.client('/statements?limit=100')).json.statements.length, 50)
  await lrs.close()
})

test('under pm2-runtime a damaged store ends the runtime instead of restarting workers forever', { skip }, async (t) => {
  const dir = freshStore().LRS_DATA_DIR
  fs.writeFileSync(path.join(dir, 'lrs.sqlite'), Buffer.alloc(50000, 7))
  const pm2Home = fs.mkdtempSync(path.join(dir, 'pm2-'))
  const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/pm2/bin/pm2-runtime'), 'start', 'ecosystem.config.js'], {
    cwd: ROOT,
    env: { ...process.env, PM2_HOME: pm2Home, LRS_DATA_DIR: dir, LRS_INSTANCES: '2', HOST: '127.0.0.1', PORT: '0', LRS_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.after(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  child.stderr.on('data', (d) => { out += d })
  const started = Date.now()
  const code = await new Promise((resolve) => child.once('exit', resolve))
  // pm2-runtime means to exit with 2 once nothing runs (--auto-exit), but its
  // in-process daemon calls process.exit(0) 2 ms after killing the apps
  // (pm2/lib/Daemon.js), racing that exit(2): measured, 0 about one run in
  // five of the whole suite. What holds is that it exits, and that nothing
  // was started again.
  assert.ok([0, 2].includes(code), `pm2-runtime exited with ${code}: ${out}`)
  assert.ok(Date.now() - started < 40000, 'it gave up within 40 s')
  assert.match(out, /failed to start: the SQLite store .*lrs\.sqlite is damaged/)
  assert.equal(out.match(/starting in -(fork|cluster) mode-/g).length, 3, 'the writer and two workers started once each, none again')
  assert.equal(out.match(/exited with code \[78\]/g).length, 3)
})
