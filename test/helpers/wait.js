'use strict'

// Waiting for what the LRS does in the background (deliveries, published
// metrics, credential refreshes, checkpoints): a condition polled until it
// holds or a deadline passes, never a fixed sleep.

// ms it took until `check()` held, or Infinity when `within` ms passed
// first. `every`: ms between checks (0: at once after each).
async function timeUntil (check, { within = 20000, every = 50 } = {}) {
  const start = Date.now()
  for (;;) {
    if (await check()) return Date.now() - start
    if (Date.now() - start > within) return Infinity
    await new Promise((resolve) => (every ? setTimeout(resolve, every) : setImmediate(resolve)))
  }
}

// Whether `check()` came to hold within the time.
async function until (check, options) {
  return Number.isFinite(await timeUntil(check, options))
}

module.exports = { until, timeUntil }
