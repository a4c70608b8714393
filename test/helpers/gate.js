'use strict'

// A pause a test controls: `wait()` (from inside the LRS, through a hook)
// blocks until `open()`; `reached` resolves when something first waits.
function gate () {
  let open
  let reached
  const opened = new Promise((resolve) => { open = resolve })
  const reachedPromise = new Promise((resolve) => { reached = resolve })
  return {
    reached: reachedPromise,
    open,
    async wait () {
      reached()
      await opened
    }
  }
}

module.exports = { gate }
