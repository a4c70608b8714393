'use strict'

// A request id, a logger that binds it (created only when something logs
// more than the request line: a child per request costs on the hot path),
// and one log line per request at info: method, path, status, duration and
// statement count.
let counter = 0
const prefix = process.pid.toString(36)

// `onFinish(req, res, seconds)`: after each response (metrics).
function requestContext (logger, { onFinish = () => {} } = {}) {
  return function context (req, res, next) {
    const start = process.hrtime.bigint()
    req.id = `${prefix}-${(++counter).toString(36)}`
    let child = null
    Object.defineProperty(req, 'log', { get: () => child || (child = logger.child({ reqId: req.id })) })
    res.setHeader('X-Request-Id', req.id)
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      logger.info({
        reqId: req.id,
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        ms: Math.round(ms * 100) / 100,
        statements: res.locals.statementCount
      }, 'request')
      onFinish(req, res, ms / 1000)
    })
    next()
  }
}

module.exports = { requestContext }
