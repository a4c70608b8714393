'use strict'

// A request refused before its body is read (401, 429): Node discards a
// small unread body itself and keeps the connection; a large one is not
// worth receiving, so the connection closes after the answer.
const DRAIN_MAX_BYTES = 64 * 1024

function closeIfLargeBody (req, res) {
  if (req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > DRAIN_MAX_BYTES) {
    res.setHeader('Connection', 'close')
  }
}

module.exports = { closeIfLargeBody }
