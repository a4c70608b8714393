'use strict'

// The readers of bench/feeds.js, in a process of their own (as dashboards
// are elsewhere): opens one live feed per query (GET /feed/statements) and
// notes when each event arrived. Started with fork(); told
// { url, authorization, queries } on its IPC channel, it answers 'open' once
// every feed answered 200, and on 'report' sends { feeds: [{ query, arrivals:
// [[id, ms], ...], ended }], openFailures } and exits.

const http = require('node:http')

function openFeed (url, authorization, onEvent) {
  return new Promise((resolve, reject) => {
    const feed = { ended: false, status: null }
    const req = http.get(url, { headers: { Accept: 'text/event-stream', Authorization: authorization }, agent: false }, (res) => {
      feed.status = res.statusCode
      if (res.statusCode !== 200) { res.resume(); return resolve(feed) }
      let buffer = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        buffer += chunk
        const now = Date.now()
        let end
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const data = block.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n')
          if (data) onEvent(JSON.parse(data).id, now)
        }
      })
      res.on('close', () => { feed.ended = true })
      resolve(feed)
    })
    feed.close = () => req.destroy()
    req.on('error', (err) => { feed.ended = true; if (feed.status === null) reject(err) })
  })
}

process.on('message', async (message) => {
  if (message.type === 'open') {
    const { url, authorization, queries } = message
    const feeds = []
    let openFailures = 0
    for (const query of queries) {
      const arrivals = []
      const feed = await openFeed(`${url}/feed/statements${query ? '?' + query : ''}`, authorization, (id, ms) => arrivals.push([id, ms]))
      if (feed.status !== 200) openFailures++
      feeds.push({ query, arrivals, feed })
    }
    process.on('message', (m) => {
      if (m.type !== 'report') return
      for (const f of feeds) f.feed.close()
      process.send({ feeds: feeds.map((f) => ({ query: f.query, arrivals: f.arrivals, ended: f.feed.ended })), openFailures }, () => process.exit(0))
    })
    process.send({ type: 'open', openFailures })
  }
})
