'use strict'

// One zlib stream per process, reset between buffers, in place of
// zlib.deflateRawSync / inflateRawSync, which make a stream (a Transform,
// its native handle and zlib's state) for every buffer and free it after.
// For the small buffers of statement bodies that making was about half of
// each call (inflating a 2 KB body: 6.5 us reused against 12 us), and the
// garbage it left (the handle is a weak native object, zlib's state is
// counted as external memory) made V8 scavenge the young generation every
// ~150 ms, for 7-12 ms each, while pages of statements were read.
//
// It drives the stream's handle the way zlib's own sync path does
// (`_handle.writeSync` then `_writeState`: what is left of the output and
// the input), which Node does not document. So it checks they are there
// and otherwise, or when a result does not fit its output buffer, does
// what the convenience function does. reset() takes the stream back to
// its start with the same dictionary (Node's ResetStream sets it again).

const zlib = require('node:zlib')

const OUTPUT_BYTES = 64 * 1024

// `create(options)`: zlib.createDeflateRaw or createInflateRaw; `once`: the
// matching zlib.deflateRawSync or inflateRawSync. Returns run(input,
// offset): `input` from byte `offset` on, processed to its end, as a
// Buffer the caller must use before the next run (it is this process's
// output buffer, or a new one when the result did not fit it).
function reusedZlib (create, once, options) {
  const output = Buffer.allocUnsafe(OUTPUT_BYTES)
  let stream = null

  function open () {
    const s = create(options)
    if (typeof s._handle?.writeSync !== 'function' || !(s._writeState instanceof Uint32Array) || typeof s.reset !== 'function') return null
    // zlib reports a bad input by destroying the stream and emitting
    // 'error' later: without a listener that would end the process.
    s.on('error', () => {})
    return s
  }

  const theUsualWay = (input, offset) => once(offset ? input.subarray(offset) : input, options)

  return function run (input, offset = 0) {
    if (stream === null) stream = open() || false
    if (!stream) return theUsualWay(input, offset)
    let outputLeft
    try {
      stream._handle.writeSync(zlib.constants.Z_FINISH, input, offset, input.length - offset, output, 0, OUTPUT_BYTES)
      if (stream.destroyed) throw stream.errored || new Error('zlib stream failed')
      outputLeft = stream._writeState[0]
      stream.reset()
    } catch (err) {
      stream = null // the next run makes a new one
      throw err
    }
    // Output buffer full: maybe more to come, so from the start, the usual way.
    if (outputLeft === 0) return theUsualWay(input, offset)
    return output.subarray(0, OUTPUT_BYTES - outputLeft)
  }
}

module.exports = { reusedZlib, OUTPUT_BYTES }
