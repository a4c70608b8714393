'use strict'

const net = require('node:net')

// A TCP port free on 127.0.0.1 right now.
function freePort () {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address()
      srv.close(() => resolve(port))
    })
  })
}

module.exports = { freePort }
