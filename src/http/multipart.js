'use strict'

const { errors } = require('../errors')

// Splits a multipart/mixed body (RFC 2046) into parts, each with its
// lower-cased headers and its bytes untouched (attachments are binary).
function parseMultipart (body, boundary) {
  if (!boundary) throw errors.InvalidAttachments('multipart/mixed requires a boundary parameter')
  const delimiter = Buffer.from('--' + boundary)
  const parts = []
  let pos = body.indexOf(delimiter)
  if (pos < 0) throw errors.InvalidAttachments('multipart body does not use its declared boundary')
  for (;;) {
    pos += delimiter.length
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) break // closing "--boundary--"
    pos = skipLineEnd(body, pos)
    const next = body.indexOf(delimiter, pos)
    if (next < 0) throw errors.InvalidAttachments('multipart body is not terminated by its boundary')
    let end = next
    if (body[end - 1] === 0x0a) end--
    if (body[end - 1] === 0x0d) end--
    parts.push(parsePart(body.subarray(pos, end)))
    pos = next
  }
  return parts
}

function skipLineEnd (buf, pos) {
  while (buf[pos] === 0x20 || buf[pos] === 0x09) pos++
  if (buf[pos] === 0x0d) pos++
  if (buf[pos] === 0x0a) pos++
  return pos
}

function parsePart (raw) {
  let split = raw.indexOf('\r\n\r\n')
  let sepLen = 4
  if (split < 0) { split = raw.indexOf('\n\n'); sepLen = 2 }
  if (split < 0) {
    // A part with headers only and an empty body, or no headers at all.
    if (raw.indexOf(':') >= 0 && raw.indexOf('\n') < 0) return { headers: parseHeaders(raw.toString('latin1')), body: Buffer.alloc(0) }
    return { headers: {}, body: raw }
  }
  return { headers: parseHeaders(raw.subarray(0, split).toString('latin1')), body: raw.subarray(split + sepLen) }
}

function parseHeaders (text) {
  const headers = {}
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return headers
}

// Builds a multipart/mixed response body from parts of { headers, body }.
function buildMultipart (parts, boundary) {
  const chunks = []
  for (const part of parts) {
    let head = `--${boundary}\r\n`
    for (const [k, v] of Object.entries(part.headers)) head += `${k}: ${v}\r\n`
    chunks.push(Buffer.from(head + '\r\n'), Buffer.isBuffer(part.body) ? part.body : Buffer.from(part.body), Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return Buffer.concat(chunks)
}

module.exports = { parseMultipart, buildMultipart }
