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
// or before C, on whichever worker it was written. On several hosts each
// stamps `stored` by its own clock: readers subtract LRS_CLOCK_SKEW_MS
// too (statements-routes.js), so a host whose clock is behind by up to
// that much is covered as well.
//
// A write's requests get LRS_WRITE_TIMEOUT_MS from the first one's
// submission (the time it waited for the writes ahead of it counts); past
// it they get 503 (the database is unavailable, or cut off from this host,
// or slow) and the batcher moves on, while the write itself goes on to its
// end in the background (restamps included) with its outcome logged: its
// statements may be stored, which a client's retry with the same ids is
// told.
//
// `databaseDown()` says whether the latest write to have ended found the
// database unreachable (DatabaseUnavailable, the deadline included): while
// it holds, the load shedder answers new writes 503 at once instead of
// queuing them (src/http/load-shedding.js), and the first write stored
// says the database is back. Latest by start: a write begun before the
// database went away and failing only after its return (its connection
// was lost with it) says nothing of now, and once taken for news it kept
// a host refusing for seconds after the database was back.

const { errors } = require('../../errors')
const { unqualify } = require('../../stores/store-keys')

const MAX_RESTAMPS = 3
const RESTAMP_SLICE = 50

// `upstreams`: where statements are forwarded (src/forwarding/upstreams.js).
// `reachable()`: resolves once the database answers (storage.ping); a
// write that starts while the database is down waits for it before it
// takes its `stored`: stamped before, it came back with a time seconds
// old, was given a new one (Consistent-Through) at the cost of another
// write of every statement, and the host stored again seconds after the
// database's return instead of at once. Its answer ends the episode.
function createBatchWriter ({ statements, sameStatement, upstreams, marginMs, timeoutMs, reachable = async () => {}, logger, hooks = {} }) {
  let down = false
  let started = 0 // writes begun
  let decidedBy = -1 // the write whose outcome `down` is
  const outcome = (n, err) => {
    if (n < decidedBy) return
    decidedBy = n
    down = Boolean(err && err.code === errors.DatabaseUnavailable.code)
  }

  function writeBatch (groups, { submittedAt = Date.now() } = {}) {
    const remaining = submittedAt + timeoutMs - Date.now()
    // Waited all its time behind the writes ahead of it: not tried (and
    // not taken for news of the database).
    if (remaining <= 0) return Promise.reject(errors.DatabaseUnavailable(`the statements were not stored within ${timeoutMs} ms; retry shortly`))
    const n = started++
    // the database answering again is news enough: the writes waiting go
    // through from now on, not only once this one is stored
    const write = (down ? reachable().then(() => outcome(n)) : Promise.resolve()).then(() => store(groups))
    write.then(() => outcome(n), (err) => outcome(n, err))
    let timer
    const late = new Promise((resolve, reject) => {
      timer = setTimeout(() => {
        reject(errors.DatabaseUnavailable(`the database did not store the statements within ${timeoutMs} ms; retry shortly (statements with the same ids are answered as stored if they were)`))
        const statementCount = groups.reduce((n, g) => n + g.length, 0)
        write.then(() => logger.warn({ statements: statementCount, timeoutMs }, 'a batch answered 503 past LRS_WRITE_TIMEOUT_MS was stored afterwards'),
          (err) => logger.warn({ err, statements: statementCount, timeoutMs }, 'a batch answered 503 past LRS_WRITE_TIMEOUT_MS failed afterwards'))
      }, remaining)
    })
    return Promise.race([write, late]).catch((err) => {
      outcome(n, err)
      throw err
    }).finally(() => clearTimeout(timer))
  }

  async function store (groups) {
    const forwardTo = await upstreams.forwardTo().catch((err) => { throw errors.DatabaseUnavailable(undefined, { cause: err }) })
    const stored = new Date()
    if (hooks.beforeStore) await hooks.beforeStore(groups.flat().map((r) => unqualify(r.id)))
    const { failed, inserted } = await statements.storeBatch(groups, { stored, sameStatement, forwardTo })
    let late = inserted.length && Date.now() - stored.getTime() > marginMs
    for (let round = 0; late; round++) {
      if (round === MAX_RESTAMPS) {
        logger.error({ statements: inserted.length, marginMs }, 'statements became visible later than LRS_CONSISTENCY_MARGIN_MS after their stored time')
        break
      }
      logger.warn({ statements: inserted.length, marginMs, round }, 'batch became visible later than LRS_CONSISTENCY_MARGIN_MS after its stored time; stored again')
      // A slice at a time, each with a time of its own: a database that
      // writes a document at a time (FerretDB, ~12 ms each) took longer than
      // the margin to move a large batch, which was then moved again, and
      // again, and the batch outlived its deadline.
      late = false
      for (let i = 0; i < inserted.length; i += RESTAMP_SLICE) {
        const at = new Date()
        await statements.restamp(inserted.slice(i, i + RESTAMP_SLICE), at)
        if (Date.now() - at.getTime() > marginMs) late = true
      }
    }
    return new Map([...failed].map(([group, id]) => [group, errors.ConflictingStatement(`statement ${unqualify(id)} already exists with different content`)]))
  }

  return { writeBatch, databaseDown: () => down }
}

module.exports = { createBatchWriter }
