'use strict'

// The JSON text of each statement in a request body, as the client sent it.
// The write path stores that text with the LRS's own properties appended
// instead of serialising the parsed statement again: JSON.stringify of a
// 1.8 KB statement costs more than finding its boundaries, and the copy it
// makes is garbage the collector has to chase while the batch waits.
//
// Only called on text JSON.parse accepted, so the scan can trust the
// syntax: it tracks nesting and skips strings, nothing more.

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

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

// One text for an object body, one per element for an array body; null when
// the body is neither (validation rejects it anyway).
function statementTexts (text) {
  const body = text.trim()
  const first = body.charCodeAt(0)
  if (first === OPEN_BRACE) return [body]
  if (first !== OPEN_BRACKET) return null
  const texts = []
  let depth = 0
  let start = -1
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i)
    if (c === QUOTE) {
      i = endOfString(body, i)
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (depth === 1) start = c === OPEN_BRACE ? i : -1
      depth++
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
      if (depth === 1 && start >= 0) {
        texts.push(body.slice(start, i + 1))
        start = -1
      }
    }
  }
  return texts
}

module.exports = { statementTexts }
