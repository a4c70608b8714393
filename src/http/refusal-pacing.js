'use strict'

// A refusal decided before the body is read (401, 429) is cheap, but not
// free: the request head is parsed and authenticated, the answer written,
// and the unread body still crosses the socket to be discarded. A
// closed-loop client that ignores Retry-After sends its next request the
// moment it has the answer, so under overload refused clients spun: at 256
// connections on 2 cores, 1,400 refusals a second (50 KB bodies) took the
// CPU the accepted writes needed, and the LRS accepted half its peak.
//
// So past LRS_REFUSALS_PER_SECOND refusals a second (per worker), a
// refusal's answer is held: the request waits in a queue (no CPU, one
// timer per worker) and is answered when the budget allows, or after
// LRS_REFUSAL_HOLD_MAX_MS at the latest. A spinning client is paced; one
// that honours Retry-After is seldom held, since refusals stay under the
// budget. A request whose client went away while held is dropped.

const TICK_MS = 25

function createRefusalPacer ({ perSecond, holdMaxMs, lifecycle = {} }) {
  let tokens = perSecond // a second's worth of refusals may go out at once
  let refilledAt = Date.now()
  let held = [] // FIFO of { at, release, gone }
  let head = 0
  let timer = null

  function refill (now) {
    tokens = Math.min(perSecond, tokens + ((now - refilledAt) * perSecond) / 1000)
    refilledAt = now
  }

  function releaseDue () {
    const now = Date.now()
    refill(now)
    while (head < held.length) {
      const h = held[head]
      if (!h.gone) {
        if (tokens >= 1) tokens--
        else if (now - h.at < holdMaxMs && !lifecycle.shuttingDown) break
        h.release()
      }
      held[head++] = undefined
    }
    if (head === held.length) {
      held = []
      head = 0
      clearInterval(timer)
      timer = null
    } else if (head > 1024 && head * 2 > held.length) {
      held = held.slice(head)
      head = 0
    }
  }

  function pace (res, release) {
    const now = Date.now()
    refill(now)
    if (holdMaxMs === 0 || (head === held.length && tokens >= 1)) {
      tokens--
      return release()
    }
    const h = { at: now, release, gone: false }
    res.once('close', () => { h.gone = true })
    held.push(h)
    if (!timer) timer = setInterval(releaseDue, TICK_MS)
  }

  // `paced(middleware)`: the same middleware, its refusals paced.
  return function paced (middleware) {
    return function pacedMiddleware (req, res, next) {
      return middleware(req, res, (err) => {
        if (err && (err.status === 401 || err.status === 429)) return pace(res, () => next(err))
        next(err)
      })
    }
  }
}

module.exports = { createRefusalPacer }
