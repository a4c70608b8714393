'use strict'

// The `more` IRL (Communication 2.1.3): a relative URL carrying the query
// and the (stored, id) position of the last statement served, so the next
// page continues exactly there however many statements arrive meanwhile.
// No skip: cost does not grow with the page number.

const { errors } = require('../../errors')

function encodeMore (basePath, query, next, format, attachments) {
  const payload = {
    q: { ...query, since: query.since && query.since.toISOString(), until: query.until && query.until.toISOString() },
    c: next,
    f: format,
    a: attachments
  }
  return `${basePath}?more=${Buffer.from(JSON.stringify(payload)).toString('base64url')}`
}

function decodeMore (token) {
  try {
    const p = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))
    if (!p || !p.q || !p.c || typeof p.c.stored !== 'number' || typeof p.c.id !== 'string') throw new Error('shape')
    const query = { ...p.q, since: p.q.since ? new Date(p.q.since) : undefined, until: p.q.until ? new Date(p.q.until) : undefined }
    return { query, cursor: p.c, format: p.f || 'exact', attachments: !!p.a }
  } catch {
    throw errors.InvalidParameter('more is not a valid continuation token')
  }
}

module.exports = { encodeMore, decodeMore }
