'use strict'

// Strings -> one UTF-8 Buffer, without first joining them into one string.
// A page of statements is about 200 KB of JSON: joined, it is a string in
// V8's large-object space, which is the old generation, and HTTP made
// further copies of it (headers + body). At a hundred pages a second that
// filled the old generation every few seconds, and each full collection
// stopped the worker for 20-40 ms, the slowest queries' time. The Buffer
// lives outside the heap and is freed with its (young) handle.
function utf8Concat (pieces) {
  let bytes = 0
  for (const piece of pieces) bytes += Buffer.byteLength(piece)
  const out = Buffer.allocUnsafe(bytes)
  let at = 0
  for (const piece of pieces) at += out.write(piece, at)
  return out
}

module.exports = { utf8Concat }
