'use strict'

// A bounded load generator for failure tests: `connections` loops POST
// batches of statements with client-chosen ids until stopped, and remember
// which ids were acknowledged (200), with their actors, and how every
// request ended.

const crypto = require('node:crypto')
const { scormStatement } = require('./statement-generator')

function startLoad ({ url, auth, connections = 20, batch = 10, maxRequests = 1e6 }) {
  const acked = []
  const actorOf = new Map() // acknowledged id -> its actor, for agent queries
  const outcomes = {}
  const errorsSeen = {}
  let running = true
  let sent = 0
  let lastOk = 0
  const headers = { 'Content-Type': 'application/json', 'X-Experience-API-Version': '1.0.3', Authorization: 'Basic ' + Buffer.from(auth).toString('base64') }
  const loop = async () => {
    while (running && sent < maxRequests) {
      sent++
      const statements = Array.from({ length: batch }, (_, i) => ({ ...scormStatement(sent * batch + i), id: crypto.randomUUID() }))
      let key
      try {
        const res = await fetch(url + '/xapi/statements', { method: 'POST', headers, body: JSON.stringify(statements), signal: AbortSignal.timeout(30000) })
        await res.arrayBuffer()
        key = String(res.status)
        if (res.status === 200) {
          for (const s of statements) {
            acked.push(s.id)
            actorOf.set(s.id, s.actor)
          }
        }
      } catch (err) {
        key = 'network error'
        const detail = `${err.message}: ${err.cause ? (err.cause.code || err.cause.message) : ''}`
        errorsSeen[detail] = (errorsSeen[detail] || 0) + 1
        if (process.env.BENCH_TRACE) process.stderr.write(`${new Date().toISOString()} ${detail} ${JSON.stringify(err.cause && err.cause.socket)}\n`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      outcomes[key] = (outcomes[key] || 0) + 1
      if (key === '200') lastOk = Date.now()
      if (key !== '200') await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const loops = Array.from({ length: connections }, loop)
  return {
    acked,
    actorOf,
    outcomes,
    errorsSeen,
    get lastOk () { return lastOk },
    async stop () {
      running = false
      await Promise.all(loops)
    }
  }
}

// Which of `ids` are missing from the statements collection. One scan of
// the ids: on FerretDB a large $in is not pushed down to the _id index.
module.exports = { startLoad }
