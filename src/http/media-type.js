'use strict'

// "application/json; charset=utf-8" -> { type: 'application/json', params: { charset: 'utf-8' } }
function parseMediaType (value) {
  if (typeof value !== 'string' || !value.trim()) return { type: '', params: {} }
  const [type, ...rest] = value.split(';')
  const params = {}
  for (const p of rest) {
    const eq = p.indexOf('=')
    if (eq < 0) continue
    let v = p.slice(eq + 1).trim()
    if (v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1)
    params[p.slice(0, eq).trim().toLowerCase()] = v
  }
  return { type: type.trim().toLowerCase(), params }
}

module.exports = { parseMediaType }
