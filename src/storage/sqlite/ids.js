'use strict'

// Statement ids are kept as 16-byte blobs (half the size of the text in
// every index entry). Ids reach storage lower-cased.
function idToBlob (id) {
  return Buffer.from(id.replace(/-/g, ''), 'hex')
}

function blobToId (blob) {
  const h = blob.toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

module.exports = { idToBlob, blobToId }
