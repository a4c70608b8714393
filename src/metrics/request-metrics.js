'use strict'

// Counts each answered request by route template (a path of the OpenAPI
// document, so the label set is fixed: a client cannot grow it by asking
// for new URLs), method and status; and the failures operators alert on.

const DATABASE_CODES = new Set(['LRS_ERR_DATABASE_UNAVAILABLE', 'LRS_ERR_QUERY_TIMEOUT'])

function routeMatcher (paths) {
  const templates = paths.map((p) => ({ route: p, pattern: new RegExp('^' + p.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '/?$') }))
  return function routeOf (path) {
    for (const t of templates) if (t.pattern.test(path)) return t.route
    return 'other'
  }
}

function requestMetrics (instruments, paths) {
  const routeOf = routeMatcher(paths)
  return function onFinish (req, res, seconds) {
    const route = routeOf(req.originalUrl.split('?')[0])
    const method = req.method
    instruments.answered()
    instruments.requests.inc({ route, method, status: String(res.statusCode) })
    instruments.requestSeconds.observe({ route, method }, seconds)
    if (res.statusCode === 429) instruments.overloadRejections.inc({ route })
    if (res.statusCode === 401) instruments.authFailures.inc()
    if (req.credential) instruments.countAnswer(req.credential.store || 0, res.statusCode)
    const code = res.locals.errorCode
    if (code && DATABASE_CODES.has(code)) instruments.databaseErrors.inc({ code })
  }
}

module.exports = { requestMetrics }
