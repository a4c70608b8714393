'use strict'

// Preloaded into every process of a host (NODE_OPTIONS=--require ...) to
// give that host a wall clock LRS_TEST_CLOCK_OFFSET_MS off the machine's,
// as NTP leaves hosts' clocks a little apart: Date.now() and new Date()
// are shifted; timers and monotonic clocks are not, as on a real host.
// Test-only: the LRS itself never reads this variable.

const RealDate = Date
const offset = Number(process.env.LRS_TEST_CLOCK_OFFSET_MS || 0)

if (offset) {
  const SkewedDate = function Date (...args) {
    if (!new.target) return new RealDate(RealDate.now() + offset).toString()
    return args.length === 0 ? new RealDate(RealDate.now() + offset) : new RealDate(...args)
  }
  SkewedDate.prototype = RealDate.prototype
  SkewedDate.now = () => RealDate.now() + offset
  SkewedDate.parse = RealDate.parse
  SkewedDate.UTC = RealDate.UTC
  globalThis.Date = SkewedDate
}
