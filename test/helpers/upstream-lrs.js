'use strict'

// A minimal upstream LRS that records what it receives. `answer(list)`
// decides the status for a POSTed list (default 200); `server.answer` can
// be changed meanwhile. `url` carries the credentials `user:password`.

const http = require('node:http')
const { parseUpstream } = require('../../src/forwarding/upstreams')

function upstreamLrs (answer = () => 200, { user = 'fwd', password = 'pw' } = {}) {
  const received = []
  const requests = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c) => { body += c })
    req.on('end', () => {
      const list = JSON.parse(body)
      const status = server.answer(list)
      requests.push({ url: req.url, auth: req.headers.authorization, version: req.headers['x-experience-api-version'], ids: list.map((s) => s.id), status })
      res.statusCode = status
      if (status !== 200) return res.end('{"error":true}')
      received.push(...list)
      res.setHeader('Content-Type', 'application/json')
      res.end(JSON.stringify(list.map((s) => s.id)))
    })
  })
  server.answer = answer
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const url = `http://${user}:${password}@127.0.0.1:${server.address().port}/xapi`
    const { id, name } = parseUpstream(url)
    resolve({ server, received, requests, url, id, name })
  }))
}

module.exports = { upstreamLrs }
