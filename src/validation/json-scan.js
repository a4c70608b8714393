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
//
// Given `parsed` (what JSON.parse made of the text), it also counts the
// member names in the text: more names than the value has members means a
// name given twice in one object. JSON.parse keeps the
// last, while the stored text would show both, and a client whose parser
// keeps the first would read another statement than the one the LRS
// indexed; so that is 400.

const { errors } = require('../errors')

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d
const COMMA = 0x2c

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

// The members of the objects in a parsed JSON value, all levels.
function countMembers (value) {
  if (value === null || typeof value !== 'object') return 0
  let n = 0
  if (Array.isArray(value)) {
    for (const v of value) n += countMembers(v)
  } else {
    for (const k in value) n += 1 + countMembers(value[k])
  }
  return n
}

// Counted only once the scan has checked the depth: the count recurses.
function checkMembers (counted, parsed) {
  if (parsed !== undefined && counted !== countMembers(parsed)) throw errors.BadRequest('an object has a member name twice; names must be unique within an object')
}

const tooLong = (max) => errors.BadRequest(`a string is longer than ${max} characters (LRS_MAX_STRING_LENGTH)`)
const tooDeep = (max) => errors.BadRequest(`objects and arrays are nested deeper than ${max} levels (LRS_MAX_JSON_DEPTH)`)

// What the pass reports of the outermost value's own level (depth 1), for
// the callers that cut texts out of it.
const KEY = 0 // a member name: (KEY, its opening quote, its closing quote)
const SEPARATOR = 1 // a comma between members or elements: (SEPARATOR, i)
const ELEMENT_OPEN = 2 // an object or array inside it opens: (ELEMENT_OPEN, i, the bracket)
const CLOSE = 3 // a bracket closes back to depth 1 or 0: (CLOSE, i, that depth)

// The one pass over the text: checks the limits, counts member names (and
// compares them with `parsed`), and tells `onTop` about the outermost
// level. Events come only at depth 0 and 1, a few per statement.
function scan (text, { maxDepth, maxStringLength, parsed }, onTop) {
  const inObject = [] // by depth: an object (not an array) is open there
  let expectKey = false
  let names = 0
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const close = endOfString(text, i)
      if (close - i - 1 > maxStringLength) throw tooLong(maxStringLength)
      if (expectKey) {
        expectKey = false
        names++
        if (depth === 1 && onTop) onTop(KEY, i, close)
      }
      i = close
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      expectKey = inObject[depth] = c === OPEN_BRACE
      if (++depth > maxDepth) throw tooDeep(maxDepth)
      if (depth === 2 && onTop) onTop(ELEMENT_OPEN, i, c)
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      expectKey = false
      if (--depth <= 1 && onTop) onTop(CLOSE, i, depth)
    } else if (c === COMMA) {
      expectKey = inObject[depth - 1]
      if (depth === 1 && onTop) onTop(SEPARATOR, i)
    }
  }
  checkMembers(names, parsed)
}

// Returns the text of each object: the whole text for an object, each
// object element for an array; null for anything else.
function scanJson (text, limits) {
  const body = text.trim()
  const first = body.charCodeAt(0)
  if (first !== OPEN_BRACKET) {
    scan(body, limits, null)
    return first === OPEN_BRACE ? [body] : null
  }
  const texts = []
  let start = -1
  scan(body, limits, (event, i, detail) => {
    if (event === ELEMENT_OPEN) start = detail === OPEN_BRACE ? i : -1
    else if (event === CLOSE && detail === 1 && start >= 0) {
      texts.push(body.slice(start, i + 1))
      start = -1
    }
  })
  return texts
}

// The text of one JSON object without some of its top-level members, or
// null when one of them is not there as a plain key (an escaped key is
// possible in JSON): the caller then serialises the parsed value instead.
// Enforces the limits of scanJson in the same pass. The import keeps a
// statement's own text this way (dropping `stored` and `authority`, which
// the store keeps apart) rather than paying for JSON.stringify or a second
// scan.
function withoutMembers (text, keys, limits) {
  const cuts = [] // [from, to) pairs, in order
  let commaBefore = -1 // before the current top-level member; -1 for a first one
  let cutFrom = -1 // where the current member's cut starts, if it is one of keys
  let found = 0 // bit k: keys[k] was seen
  let count = 0
  scan(text, limits, (event, i, detail) => {
    if (event === KEY) {
      const k = keyIndex(text, i + 1, detail, keys)
      if (k >= 0) {
        found |= 1 << k
        count++
        cutFrom = commaBefore >= 0 ? commaBefore : i
      }
    } else if (event === CLOSE && detail === 0) {
      if (cutFrom >= 0) cuts.push(cutFrom, i)
    } else if (event === SEPARATOR) {
      // a first member goes with the comma after it, and the next member
      // becomes the first
      if (cutFrom >= 0 && commaBefore < 0) cuts.push(cutFrom, i + 1)
      else if (cutFrom >= 0) cuts.push(cutFrom, i)
      if (cutFrom < 0 || commaBefore >= 0) commaBefore = i
      cutFrom = -1
    }
  })
  if (count !== keys.length || found !== (1 << keys.length) - 1) return null
  let out = ''
  let from = 0
  for (let j = 0; j < cuts.length; j += 2) {
    out += text.slice(from, cuts[j])
    from = cuts[j + 1]
  }
  return out + text.slice(from)
}

function keyIndex (text, from, to, keys) {
  for (let k = 0; k < keys.length; k++) {
    if (keys[k].length === to - from && text.startsWith(keys[k], from)) return k
  }
  return -1
}

module.exports = { scanJson, withoutMembers }
