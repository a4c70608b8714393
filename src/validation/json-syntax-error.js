'use strict'

// Where JSON text that JSON.parse refused goes wrong, as a person finds it:
// line and column (1-based) and what was found there. V8's own messages
// give a position for some mistakes and for others only a piece of the
// text itself; this walks the text once more (only on that error path)
// and stops at the first character JSON does not allow.

const WS = new Set([' ', '\t', '\n', '\r'])
const LITERALS = ['true', 'false', 'null']
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y

// The offset of the first error in `text` (text.length: it ended too soon),
// or -1 when the text is valid JSON.
function firstErrorAt (text) {
  let i = 0
  const stack = [] // '{' or '[' of the containers open
  const skip = () => { while (i < text.length && WS.has(text[i])) i++ }
  const match = (re) => { re.lastIndex = i; return re.test(text) ? re.lastIndex : -1 }
  // expecting: 'value' | 'key' | 'colon' | 'after' (a comma or a close)
  let expecting = 'value'
  let first = true // the first member or element of the container just opened
  for (;;) {
    skip()
    if (i >= text.length) return stack.length || expecting !== 'after' ? text.length : -1
    const c = text[i]
    if (expecting === 'value' || expecting === 'key') {
      if (first && ((c === '}' && stack.at(-1) === '{') || (c === ']' && stack.at(-1) === '['))) {
        stack.pop(); i++; expecting = 'after'; first = false; continue
      }
      first = false
      if (expecting === 'key') {
        const end = c === '"' ? match(STRING) : -1
        if (end < 0) return i
        i = end; expecting = 'colon'; continue
      }
      if (c === '{' || c === '[') { stack.push(c); i++; first = true; expecting = c === '{' ? 'key' : 'value'; continue }
      let end = -1
      if (c === '"') end = match(STRING)
      else if (c === '-' || (c >= '0' && c <= '9')) end = match(NUMBER)
      else {
        const literal = LITERALS.find((l) => text.startsWith(l, i))
        if (literal) end = i + literal.length
      }
      if (end < 0) return i
      i = end; expecting = 'after'; continue
    }
    if (expecting === 'colon') {
      if (c !== ':') return i
      i++; expecting = 'value'; continue
    }
    // after a value
    if (!stack.length) return i // something after the whole value
    if (c === ',') { i++; expecting = stack.at(-1) === '{' ? 'key' : 'value'; continue }
    if ((c === '}' && stack.at(-1) === '{') || (c === ']' && stack.at(-1) === '[')) { stack.pop(); i++; continue }
    return i
  }
}

// "line 3, column 14: unexpected '}'" (or "line 1, column 9: the text ends
// too soon"); null when `text` is valid JSON.
function describeJsonError (text) {
  const at = firstErrorAt(text)
  if (at < 0) return null
  let line = 1
  let lineStart = 0
  for (let k = text.indexOf('\n'); k >= 0 && k < at; k = text.indexOf('\n', k + 1)) {
    line++
    lineStart = k + 1
  }
  const where = `line ${line}, column ${at - lineStart + 1}`
  if (at >= text.length) return `${where}: the text ends too soon`
  const found = text.codePointAt(at)
  const shown = found < 0x20 || found === 0x7f ? `character U+${found.toString(16).toUpperCase().padStart(4, '0')}` : `'${String.fromCodePoint(found)}'`
  return `${where}: unexpected ${shown}`
}

module.exports = { describeJsonError }
