'use strict'

// A background job that runs every `everyMs` once `ready` resolves, one run
// at a time (the next is timed from the end of the last). A run that
// throws is logged as `failure` and the next one goes on. `stopped()`
// (given to `run`, and on what this returns) turns true once stop() is
// called, for a long run to end early; stop() runs no more and waits for
// the run under way.
function startRepeating ({ ready, everyMs, run, logger, failure }) {
  let timer = null
  let running = null
  let stopped = false
  const isStopped = () => stopped

  function schedule () {
    if (stopped) return
    timer = setTimeout(() => {
      running = Promise.resolve()
        .then(() => run(isStopped))
        .catch((err) => logger.warn({ err }, failure))
        .finally(() => { running = null; schedule() })
    }, everyMs)
    timer.unref()
  }
  ready.then(schedule, () => {})

  return {
    stopped: isStopped,
    async stop () {
      stopped = true
      clearTimeout(timer)
      await running
    }
  }
}

module.exports = { startRepeating }
