'use strict'

// The wire between the workers and the host's writer process: a Unix
// socket beside the database file carrying frames of a 4-byte length and a
// v8-serialized value (the same values a worker thread's postMessage
// carries: records with their bodies, Buffers, plain objects).

const crypto = require('node:crypto')
const os = require('node:os')
const path = require('node:path')
const v8 = require('node:v8')

// Where the writer listens, in the order to try: LRS_WRITER_SOCKET when
// set (that one only), else beside the database file and then in the
// temporary folder, named after the data folder. The second is for data
// folders that cannot hold a socket: FUSE, some network and container bind
// mounts (listen fails there, with ENOSYS for one), and paths too long for
// sockaddr_un (108 bytes on Linux, 104 on macOS), for which it is the
// only one. The writer takes the first it can listen on and workers try
// each in turn, so neither needs to be told which.
const MAX_SOCKET_PATH = 100

function writerSocketPaths (dataDir, configured = '') {
  if (configured) return [path.resolve(configured)]
  const hash = crypto.createHash('sha256').update(path.resolve(dataDir)).digest('hex').slice(0, 16)
  const temporary = path.join(os.tmpdir(), `lrs-writer-${hash}.sock`)
  const beside = path.join(dataDir, 'writer.sock')
  return Buffer.byteLength(beside) <= MAX_SOCKET_PATH ? [beside, temporary] : [temporary]
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

module.exports = { writerSocketPaths, sendFrame, readFrames }
