'use strict'

const crypto = require('node:crypto')

// A multipart/mixed body from parts of { headers, body }.
function multipart (parts, boundary) {
  const chunks = []
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\n` + Object.entries(p.headers).map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n'), Buffer.from(p.body), Buffer.from('\r\n'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`))
  return Buffer.concat(chunks)
}

// POSTs statements with attachment parts ({ content, contentType }) through `client`.
function postWithAttachments (client, statements, parts) {
  const boundary = 'b-' + crypto.randomUUID()
  const body = multipart([
    { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(statements) },
    ...parts.map((p) => ({
      headers: { 'Content-Type': p.contentType || 'application/octet-stream', 'Content-Transfer-Encoding': 'binary', 'X-Experience-API-Hash': crypto.createHash('sha256').update(p.content).digest('hex') },
      body: p.content
    }))
  ], boundary)
  return client('/statements', { method: 'POST', body, headers: { 'Content-Type': `multipart/mixed; boundary=${boundary}` } })
}

// The attachment declaration for some content.
function attachmentOf (content, { usageType = 'http://example.com/usage', contentType = 'application/octet-stream' } = {}) {
  return { usageType, display: { 'en-US': 'a file' }, contentType, length: content.length, sha2: crypto.createHash('sha256').update(content).digest('hex') }
}

module.exports = { multipart, postWithAttachments, attachmentOf }
