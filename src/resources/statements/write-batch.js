'use strict'

// What one group commit does (the batcher decides when): give the batch its
// `stored`, store every request's statements all or nothing, and keep the
// Consistent-Through promise.
//
// X-Experience-API-Consistent-Through (Communication 2.1.3) is "now minus
// LRS_CONSISTENCY_MARGIN_MS" on every worker, so it needs no state shared
// between workers. It holds because no statement becomes visible later than
// that margin after its `stored`: a batch whose write took longer (a slow
// or stalled database) is given a new `stored` before any of its requests
// is answered, and again until one write fits in the margin. A reader that
// was told "consistent through C" therefore saw every statement stored at
// or before C, on whichever worker it was written.

const { errors } = require('../../errors')
const { unqualify } = require('../../stores/store-keys')

const MAX_RESTAMPS = 3

// `upstreams`: where statements are forwarded (src/forwarding/upstreams.js).
function createBatchWriter ({ statements, sameStatement, upstreams, marginMs, logger, hooks = {} }) {
  return async function writeBatch (groups) {
    const forwardTo = await upstreams.forwardTo().catch((err) => { throw errors.DatabaseUnavailable(undefined, { cause: err }) })
    let stored = new Date()
    if (hooks.beforeStore) await hooks.beforeStore(groups.flat().map((r) => unqualify(r.id)))
    const { failed, inserted } = await statements.storeBatch(groups, { stored, sameStatement, forwardTo })
    for (let round = 0; inserted.length && Date.now() - stored.getTime() > marginMs; round++) {
      if (round === MAX_RESTAMPS) {
        logger.error({ statements: inserted.length, marginMs }, 'statements became visible later than LRS_CONSISTENCY_MARGIN_MS after their stored time')
        break
      }
      stored = new Date()
      logger.warn({ statements: inserted.length, marginMs, round }, 'batch became visible later than LRS_CONSISTENCY_MARGIN_MS after its stored time; stored again')
      await statements.restamp(inserted, stored)
    }
    return new Map([...failed].map(([group, id]) => [group, errors.ConflictingStatement(`statement ${unqualify(id)} already exists with different content`)]))
  }
}

module.exports = { createBatchWriter }
