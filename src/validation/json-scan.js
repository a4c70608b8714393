'use strict'

// One pass over JSON text that JSON.parse accepted: enforces the limits on
// its content and finds the text of each top-level value.
//
// Limits: nesting deeper than `maxDepth` (JSON.parse copes, but
// serialising and comparing recurse) and strings longer than
// `maxStringLength` characters as sent (escapes included) are 400.
//
// The texts serve the statement write path, which stores each statement's
// text as the client sent it with the LRS's own properties appended instead
// of serialising the parsed statement again: JSON.stringify of a 1.8 KB
// statement costs more than finding its boundaries, and the copy it makes
// is garbage the collector has to chase while the batch waits.
//
// The syntax is already known to be valid, so the scan tracks nesting and
// skips strings, nothing more.

const { errors } = require('../errors')

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const COMMA = 0x2c
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d])

// Index of the quote that closes the string opened at `open`.
function endOfString (text, open) {
  let close = text.indexOf('"', open + 1)
  for (;;) {
    let backslashes = 0
    while (text.charCodeAt(close - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return close
    close = text.indexOf('"', close + 1)
  }
}

// Returns the text of each object: the whole text for an object, each
// object element for an array; null for anything else.
function scanJson (text, { maxDepth, maxStringLength }) {
  const body = text.trim()
  const first = body.charCodeAt(0)
  const isArray = first === OPEN_BRACKET
  const texts = isArray ? [] : null
  let depth = 0
  let start = -1
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i)
    if (c === QUOTE) {
      const close = endOfString(body, i)
      if (close - i - 1 > maxStringLength) throw errors.BadRequest(`a string is longer than ${maxStringLength} characters (LRS_MAX_STRING_LENGTH)`)
      i = close
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (isArray && depth === 1) start = c === OPEN_BRACE ? i : -1
      if (++depth > maxDepth) throw errors.BadRequest(`objects and arrays are nested deeper than ${maxDepth} levels (LRS_MAX_JSON_DEPTH)`)
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
      if (isArray && depth === 1 && start >= 0) {
        texts.push(body.slice(start, i + 1))
        start = -1
      }
    }
  }
  if (first === OPEN_BRACE) return [body]
  return texts
}

// The text of one JSON object without some of its top-level members, or
// null when one of them is not there as a plain key (an escaped key is
// possible in JSON): the caller then serialises the parsed value instead.
// The import keeps a statement's own text this way (dropping `stored` and
// `authority`, which the store keeps apart) rather than paying for
// JSON.stringify.
function withoutMembers (text, keys) {
  const spans = []
  let depth = 0
  let expectKey = false
  let member = null
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const close = endOfString(text, i)
      if (depth === 1 && expectKey) {
        expectKey = false
        const key = text.slice(i + 1, close)
        if (keys.includes(key)) member = { key, start: i }
      }
      i = close
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === 0) expectKey = true
      depth++
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
      if (depth === 0 && member) { spans.push({ ...member, end: i }); member = null }
    } else if (c === COMMA && depth === 1) {
      if (member) { spans.push({ ...member, end: i }); member = null }
      expectKey = true
    }
  }
  if (spans.length !== keys.length || new Set(spans.map((s) => s.key)).size !== keys.length) return null
  let out = text
  for (const { start, end } of spans.sort((a, b) => b.start - a.start)) {
    let before = start - 1
    while (SPACE.has(out.charCodeAt(before))) before--
    if (out.charCodeAt(before) === COMMA) {
      out = out.slice(0, before) + out.slice(end)
    } else {
      let after = end
      while (SPACE.has(out.charCodeAt(after))) after++
      out = out.slice(0, start) + out.slice(out.charCodeAt(after) === COMMA ? after + 1 : end)
    }
  }
  return out
}

module.exports = { scanJson, withoutMembers }
