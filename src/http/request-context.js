'use strict'

// A request id, a logger that binds it (created only when something logs
// more than the request line: a child per request costs on the hot path),
// and one log line per request at info: method, path, status, duration,
// statement count and the key of the credential that acted (`actor`; the
// audit lines of admin changes carry it too), never its secret.
let counter = 0
const prefix = process.pid.toString(36)

// `onFinish(req, res, seconds)`: after each response (metrics).
function requestContext (logger, { onFinish = () => {} } = {}) {
  return function context (req, res, next) {
    const start = process.hrtime.bigint()
    req.id = `${prefix}-${(++counter).toString(36)}`
    let child = null
    const actor = () => (req.credential ? req.credential.key : undefined)
    Object.defineProperty(req, 'log', { get: () => child || (child = logger.child({ reqId: req.id, actor: actor() })) })
    res.setHeader('X-Request-Id', req.id)
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      logger.info({
        reqId: req.id,
        method: req.method,
        path: req.originalUrl.split('?')[0],
        status: res.statusCode,
        ms: Math.round(ms * 100) / 100,
        statements: res.locals.statementCount,
        actor: actor()
      }, 'request')
      onFinish(req, res, ms / 1000)
    })
    next()
  }
}

module.exports = { requestContext }
