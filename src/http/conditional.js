'use strict'

// If-Match / If-None-Match (RFC 7232, xAPI Communication 3.1): the list of
// entity tags a request names, with `*` as "any". Weak tags compare by
// their opaque value.
function parseEntityTags (header) {
  if (header === undefined) return null
  const value = String(header).trim()
  if (value === '*') return { any: true, tags: [] }
  const tags = []
  const re = /(?:W\/)?"([^"]*)"|([^\s,]+)/g
  let m
  while ((m = re.exec(value))) tags.push(m[1] !== undefined ? m[1] : m[2])
  return { any: false, tags }
}

function conditionsOf (req) {
  return {
    ifMatch: parseEntityTags(req.headers['if-match']),
    ifNoneMatch: parseEntityTags(req.headers['if-none-match'])
  }
}

function matches (condition, etag) {
  if (!condition) return true
  if (etag === null) return false
  return condition.any || condition.tags.includes(etag)
}

module.exports = { conditionsOf, matches }
