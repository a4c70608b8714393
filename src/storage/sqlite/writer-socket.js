'use strict'

// The wire between the workers and the host's writer process: a Unix
// socket beside the database file carrying frames of a 4-byte length and a
// v8-serialized value (the same values a worker thread's postMessage
// carries: records with their bodies, Buffers, plain objects).

const crypto = require('node:crypto')
const os = require('node:os')
const path = require('node:path')
const v8 = require('node:v8')

// A socket path must fit in sockaddr_un (108 bytes on Linux, 104 on
// macOS); a data folder deeper than that gets a socket in the temporary
// folder, named after the folder.
const MAX_SOCKET_PATH = 100

function writerSocketPath (dataDir) {
  const beside = path.join(dataDir, 'writer.sock')
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH) return beside
  const hash = crypto.createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)
  return path.join(os.tmpdir(), `lrs-writer-${hash}.sock`)
}

function sendFrame (socket, value) {
  const body = v8.serialize(value)
  const head = Buffer.allocUnsafe(4)
  head.writeUInt32LE(body.length, 0)
  socket.cork()
  socket.write(head)
  socket.write(body)
  socket.uncork()
}

// Calls `onFrame(value)` for each whole frame the socket brings.
function readFrames (socket, onFrame) {
  let chunks = []
  let buffered = 0
  let need = 4 // bytes of the length, then of the frame
  let inFrame = false
  socket.on('data', (chunk) => {
    chunks.push(chunk)
    buffered += chunk.length
    while (buffered >= need) {
      const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, buffered)
      const piece = all.subarray(0, need)
      const rest = all.subarray(need)
      chunks = rest.length ? [rest] : []
      buffered = rest.length
      if (inFrame) {
        inFrame = false
        need = 4
        onFrame(v8.deserialize(piece))
      } else {
        inFrame = true
        need = piece.readUInt32LE(0)
      }
    }
  })
}

module.exports = { writerSocketPath, sendFrame, readFrames }
