'use strict'

// A full disk is an episode an operator must see, not a stream of generic
// 503s: the first write that finds no space logs it once, at error level,
// with the folder and the space left; until it ends, readiness says the
// store is full and writes get 507 LRS_ERR_STORE_FULL (errors.js). It ends
// with the next write that succeeds, or, seen from the readiness check,
// once the disk has RESUME_FREE_BYTES free again (a store marked not ready
// gets no writes to prove it recovered).

const fs = require('node:fs')

const RESUME_FREE_BYTES = 64 * 1024 * 1024

function freeBytes (dir) {
  try {
    const s = fs.statfsSync(dir)
    return s.bavail * s.bsize
  } catch {
    return null
  }
}

// Wraps `writer`'s call(), all the repositories use of it (its other
// properties, getters among them, stay on the writer itself);
// `resumeFreeBytes`: tests only.
function watchDiskFull (writer, { dataDir, logger, resumeFreeBytes = RESUME_FREE_BYTES }) {
  let fullSince = null

  function begin () {
    if (fullSince) return
    fullSince = new Date()
    logger.error({ dataDir, freeBytes: freeBytes(dataDir) }, 'the SQLite store is full: no space left on its disk; writes are refused with 507 until space is freed')
  }

  function end (how) {
    logger.warn({ dataDir, freeBytes: freeBytes(dataDir), fullSince }, `the SQLite store has space again (${how})`)
    fullSince = null
  }

  return {
    writer: {
      async call (...args) {
        try {
          const value = await writer.call(...args)
          if (fullSince) end('a write succeeded')
          return value
        } catch (err) {
          if (err.code === 'SQLITE_FULL') begin()
          throw err
        }
      }
    },
    // Whether the episode still lasts, for the readiness check.
    isFull () {
      if (fullSince && (freeBytes(dataDir) ?? 0) >= resumeFreeBytes) end('space was freed')
      return fullSince !== null
    }
  }
}

module.exports = { watchDiskFull }
