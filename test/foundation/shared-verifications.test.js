'use strict'

// What the workers of a host tell each other of the Authorization headers
// they verified (src/auth/shared-verifications.js), on real files: seen by
// another worker with the same key, not with another key; the file stays
// bounded and is still read right after it is written again; a worker's
// file goes when it stops.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { createSharedVerifications } = require('../../src/auth/shared-verifications')

const logger = { warn () {}, info () {}, error () {} }

test('a digest one worker shares is seen by another of the same key only; the file stays bounded and readable across its rewrites; stop removes it', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-shared-'))
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  const key = 'k'.repeat(40)
  const writer = createSharedVerifications({ dataDir, key, logger, maxOwn: 100 })
  const reader = createSharedVerifications({ dataDir, key, logger })
  const stranger = createSharedVerifications({ dataDir, key: 'z'.repeat(40), logger })
  for (const w of [writer, reader, stranger]) await w.start()

  const header = 'Basic ' + Buffer.from('lms:secret').toString('base64')
  const digest = writer.digestOf(header)
  assert.equal(await reader.seen(reader.digestOf(header)), false, 'nothing shared yet')
  await writer.share(digest)
  assert.equal(await reader.seen(reader.digestOf(header)), true)
  assert.equal(await stranger.seen(stranger.digestOf(header)), false, 'another key makes another digest')

  // 1,000 more: the file is written again from what the worker remembers
  // each time it passes twice maxOwn, and the newest are seen across it
  const files = () => fs.readdirSync(path.join(dataDir, 'auth'))
  const own = files().find((name) => fs.statSync(path.join(dataDir, 'auth', name)).size > 0)
  for (let i = 0; i < 1000; i++) {
    await writer.share(writer.digestOf(`header-${i}`))
    assert.ok(fs.statSync(path.join(dataDir, 'auth', own)).size <= 2 * 100 * 32, `after ${i + 1} shares`)
    if (i % 97 === 0) assert.equal(await reader.seen(reader.digestOf(`header-${i}`)), true, `header ${i} seen`)
  }
  assert.equal(await reader.seen(reader.digestOf('header-999')), true)
  assert.equal(await reader.seen(reader.digestOf('never-shared')), false)

  await writer.stop()
  assert.ok(!files().includes(own), 'its file removed at stop')
  await reader.stop()
  await stranger.stop()
  assert.deepEqual(files(), [])
})
