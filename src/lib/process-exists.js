'use strict'

// Whether a process of this id is running (signal 0 checks without
// sending one; EPERM: it runs, as another user). Files named after a
// worker's pid (metrics, shared verifications) are removed once it is gone.
function processExists (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return err.code === 'EPERM'
  }
}

module.exports = { processExists }
