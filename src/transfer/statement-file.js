'use strict'

// Reads a statement file as a stream of items { text, offset, end, index },
// whatever its size: NDJSON (one statement per line) or one JSON array of
// statements. `end` is the byte offset just past the item, where a resumed
// import starts again (`fromOffset`). An array element the file ends
// inside comes out as { truncated: true }. An item longer than `maxItemBytes`
// is not held in memory: it comes out as { oversized: true } without its
// text (a file with no line breaks would otherwise be read whole).

const fs = require('node:fs')

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d])

// The file's format from its first non-blank byte.
async function detectFormat (file) {
  const handle = await fs.promises.open(file, 'r')
  try {
    const buffer = Buffer.alloc(4096)
    for (let position = 0; ;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
      if (!bytesRead) return 'ndjson'
      for (let i = 0; i < bytesRead; i++) if (!SPACE.has(buffer[i])) return buffer[i] === 0x5b ? 'array' : 'ndjson'
      position += bytesRead
    }
  } finally {
    await handle.close()
  }
}

// The chunks of a file from `fromOffset` on.
const fileChunks = (file, fromOffset) => fs.createReadStream(file, { start: fromOffset, highWaterMark: 1 << 20 })

// `chunks`: Buffers, from `fromOffset` of the file (or of a request's body).
async function * ndjsonItems (chunks, fromOffset, maxItemBytes) {
  let pending = Buffer.alloc(0) // the start of a line not ended yet
  let base = fromOffset // file offset of the data looked at (pending, then the chunk)
  let skipped = -1 // file offset of a line past maxItemBytes, read to its end; or -1
  let skippedLine = 0
  let index = 0
  let line = 1 // of the item, counted from fromOffset (blank lines too)
  for await (const chunk of chunks) {
    const data = pending.length ? Buffer.concat([pending, chunk]) : chunk
    let start = 0
    for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
      const end = base + nl + 1
      if (skipped >= 0) {
        yield { oversized: true, offset: skipped, end, index: index++, line: skippedLine }
        skipped = -1
      } else if (nl - start > maxItemBytes) {
        yield { oversized: true, offset: base + start, end, index: index++, line }
      } else {
        const text = data.toString('utf8', start, nl).trim()
        if (text) yield { text, offset: base + start, end, index: index++, line }
      }
      line++
      start = nl + 1
    }
    if (skipped < 0 && data.length - start > maxItemBytes) {
      skipped = base + start
      skippedLine = line
    }
    pending = skipped >= 0 ? Buffer.alloc(0) : Buffer.from(data.subarray(start))
    base += data.length - pending.length
  }
  if (skipped >= 0) {
    yield { oversized: true, offset: skipped, end: base, index, line: skippedLine }
    return
  }
  const text = pending.toString('utf8').trim()
  if (text) yield { text, offset: base, end: base + pending.length, index, line }
}

// Top-level elements of a JSON array, found by tracking strings and
// nesting byte by byte (a JSON array file can be larger than memory).
// An element that is not an object still comes out, to be reported.
async function * arrayItems (chunks, fromOffset, maxItemBytes) {
  let depth = fromOffset > 0 ? 1 : 0 // a resumed read starts between elements
  let inString = false
  let escaped = false
  let scalar = false
  let parts = []
  let held = 0 // bytes in parts
  let oversized = false // the element is past maxItemBytes: parts are dropped
  let itemStart = -1 // file offset of the element being read
  let from = 0 // its start within the current chunk
  let offset = fromOffset // file offset of the current chunk
  let index = 0
  const item = (chunk, endInChunk) => {
    const end = offset + endInChunk
    const out = oversized || held + endInChunk - from > maxItemBytes
      ? { oversized: true, offset: itemStart, end, index: index++ }
      : { text: Buffer.concat([...parts, chunk.subarray(from, endInChunk)]).toString('utf8'), offset: itemStart, end, index: index++ }
    parts = []
    held = 0
    oversized = false
    itemStart = -1
    scalar = false
    return out
  }
  for await (const chunk of chunks) {
    from = 0
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]
      if (inString) {
        if (escaped) escaped = false
        else if (c === 0x5c) escaped = true
        else if (c === 0x22) inString = false
        continue
      }
      const opens = c === 0x7b || c === 0x5b
      const closes = c === 0x7d || c === 0x5d
      if (depth === 1 && itemStart < 0 && !SPACE.has(c) && c !== 0x2c && !closes) {
        itemStart = offset + i
        from = i
        scalar = !opens
      }
      if (c === 0x22) inString = true
      else if (opens) depth++
      else if (closes) {
        if (depth === 1 && scalar) yield item(chunk, i)
        depth--
        if (depth === 1 && itemStart >= 0) yield item(chunk, i + 1)
      } else if (c === 0x2c && depth === 1 && scalar) {
        yield item(chunk, i)
      }
    }
    if (itemStart >= 0 && !oversized) {
      parts.push(chunk.subarray(from))
      held += chunk.length - from
      if (held > maxItemBytes) {
        oversized = true
        parts = []
      }
    }
    offset += chunk.length
  }
  if (itemStart >= 0) yield { truncated: true, offset: itemStart, end: offset, index }
}

async function * statementItems (file, { format, fromOffset = 0, maxItemBytes }) {
  const chunks = fileChunks(file, fromOffset)
  yield * (format === 'array' ? arrayItems(chunks, fromOffset, maxItemBytes) : ndjsonItems(chunks, fromOffset, maxItemBytes))
}

// The items of NDJSON read from a stream (a request's body).
function ndjsonStreamItems (stream, { maxItemBytes }) {
  return ndjsonItems(stream, 0, maxItemBytes)
}

module.exports = { detectFormat, statementItems, ndjsonStreamItems }
