'use strict'

// A request written by hand over a socket with its body held back, to see
// what the server answers before it has the body (authentication, load
// shedding). `head`: the request line, headers, blank line and any start
// of the body.

const net = require('node:net')

function heldRequest (url, head) {
  const { hostname, port } = new URL(url)
  const socket = net.connect(port, hostname)
  socket.write(head)
  let data = ''
  const statusLine = new Promise((resolve, reject) => {
    socket.on('data', (chunk) => {
      data += chunk
      if (data.includes('\r\n\r\n')) resolve(data.split('\r\n')[0])
    })
    socket.on('error', reject)
  })
  return {
    statusLine,
    status: statusLine.then((line) => Number(line.split(' ')[1])),
    send: (rest) => socket.write(rest),
    close: () => socket.destroy()
  }
}

module.exports = { heldRequest }
