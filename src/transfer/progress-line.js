'use strict'

// The import's progress on a terminal: one line redrawn in place, with a
// bar, the statements stored, the rate and the time left. Each file's
// first report is where this run starts it (past a checkpoint when it
// resumes), so rate and time left count this run's work only.

const BAR = 24

function clock (seconds) {
  if (!Number.isFinite(seconds)) return '?'
  const s = Math.round(seconds)
  const h = Math.floor(s / 3600)
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h ? 2 : 1, '0')
  return `${h ? h + ':' : ''}${mm}:${String(s % 60).padStart(2, '0')}`
}

// sizes: file -> bytes. Returns show(progress, final): progress is what
// importFiles reports ({ file, offset, stored, existing, rejected }); lines
// are redrawn at most every `everyMs`, and always when final.
function progressLine (sizes, { write, now = Date.now, everyMs = 250 }) {
  const starts = new Map() // file -> { at, offset, done }
  let last = -Infinity
  return function show ({ file, offset, stored, existing, rejected }, final = false) {
    const at = now()
    const done = stored + existing
    const size = sizes.get(file) || 1
    const reached = Math.min(offset || 0, size)
    if (!starts.has(file)) starts.set(file, { at, offset: reached, done })
    if (!final && at - last < everyMs) return
    last = at
    const start = starts.get(file)
    const seconds = Math.max(0.001, (at - start.at) / 1000)
    const rate = (done - start.done) / seconds
    const bytesPerSecond = (reached - start.offset) / seconds
    const left = bytesPerSecond > 0 ? (size - reached) / bytesPerSecond : Infinity
    const fraction = reached / size
    const filled = Math.round(fraction * BAR)
    write(`\r${file} [${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}] ${(fraction * 100).toFixed(1)}%  ` +
      `${done.toLocaleString('en')} statements  ${Math.round(rate).toLocaleString('en')}/s  ` +
      `${final ? 'in ' + clock(seconds) : 'ETA ' + clock(left)}  rejected ${rejected}   ${final ? '\n' : ''}`)
  }
}

module.exports = { progressLine }
