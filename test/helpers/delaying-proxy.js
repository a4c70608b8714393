'use strict'

// A TCP proxy that holds what one side sends for `delayMs` before passing
// it on (the other direction passes at once, in order): a database whose
// writes from one host become visible late, as on a slow or distant link.
// `proxy.delayMs` can change at any time.

const net = require('node:net')

function delayingProxy ({ listenHost, target }) {
  const sockets = new Set()
  const proxy = { delayMs: 0, address: null, close }
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host)
    sockets.add(client)
    sockets.add(upstream)
    let chain = Promise.resolve()
    client.on('data', (chunk) => {
      const delay = proxy.delayMs
      chain = chain.then(() => delay && new Promise((resolve) => setTimeout(resolve, delay))).then(() => { if (!upstream.destroyed) upstream.write(chunk) })
    })
    upstream.pipe(client)
    const end = () => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream) }
    for (const s of [client, upstream]) { s.on('error', end); s.on('close', end) }
  })
  function close () {
    for (const s of sockets) s.destroy()
    return new Promise((resolve) => server.close(() => resolve()))
  }
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, listenHost, () => {
      proxy.address = { host: listenHost, port: server.address().port }
      resolve(proxy)
    })
  })
}

module.exports = { delayingProxy }
