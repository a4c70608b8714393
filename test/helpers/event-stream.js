'use strict'

// A Server-Sent Events reader (as a dashboard would use one, with an
// Authorization header, which EventSource cannot send), on a connection of
// its own that closes with it: `events` fills as they come ({ id, event,
// data }), `comments` counts comment lines, `until(n)` waits for n events,
// `close()` disconnects. A refusal resolves with its status and `json`.

const http = require('node:http')

function openEventStream (url, { headers = {}, within = 15000 } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { Accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      const stream = { status: res.statusCode, headers: new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)])), events: [], comments: 0, ended: false }
      stream.close = () => req.destroy()
      if (res.statusCode !== 200) {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c) => { text += c })
        res.on('end', () => {
          try { stream.json = JSON.parse(text) } catch { stream.json = null }
          resolve(stream)
        })
        return
      }
      const waiters = new Set()
      const notify = () => { for (const w of [...waiters]) w() }
      let buffer = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        buffer += chunk
        let end
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const event = { id: null, event: 'message', data: [] }
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) { stream.comments++; continue }
            const colon = line.indexOf(':')
            const name = colon === -1 ? line : line.slice(0, colon)
            const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
            if (name === 'data') event.data.push(value)
            else if (name === 'id') event.id = value
            else if (name === 'event') event.event = value
          }
          if (event.data.length) stream.events.push({ ...event, data: event.data.join('\n') })
        }
        notify()
      })
      const ended = () => { stream.ended = true; notify() }
      res.on('end', ended)
      res.on('close', ended)
      stream.until = (n) => new Promise((resolve, reject) => {
        let timer = null
        const check = () => {
          if (stream.events.length >= n) { done(); resolve(stream.events) } else if (stream.ended) { done(); reject(new Error(`the stream ended after ${stream.events.length} of ${n} events`)) }
        }
        const done = () => { clearTimeout(timer); waiters.delete(check) }
        timer = setTimeout(() => { done(); reject(new Error(`${stream.events.length} of ${n} events within ${within} ms`)) }, within)
        waiters.add(check)
        check()
      })
      resolve(stream)
    })
    req.on('error', (err) => { if (err.code !== 'ECONNRESET') reject(err) })
  })
}

module.exports = { openEventStream }
