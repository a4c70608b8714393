'use strict'

// GET /feed/statements: a store's new statements as they are stored, as
// Server-Sent Events, outside the xAPI resources (a dashboard no longer
// polls GET /statements?since=). The filters are GET /statements' own, and
// so is what a credential may read (its store; `statements/read/mine`: its
// own statements); voided statements are not sent.
//
// The feed is driven by the store, not by the worker that took a write:
// each worker reads a store's new statements once for all its feeds
// (statement-tail.js), in stored order, however many there are, and each
// feed sends those that match its filters (feed-filter.js). Where
// statements may become visible out of stored order (MongoDB: several
// workers and hosts insert at once) the tail stays LRS_CONSISTENCY_MARGIN_MS
// + LRS_CLOCK_SKEW_MS behind; on SQLite (one writer) it needs no margin.
// So a statement stored through any worker or host reaches every feed,
// once, in stored order. Each event's id is that position, sealed
// (more-cursor.js): a client that reconnects with Last-Event-ID
// (EventSource does) goes on exactly after it, with nothing missed or
// repeated, for as long as the store keeps the statements: the feed first
// reads what it missed with its own queries, then joins the tail.
//
// A reader that takes nothing for DRAIN_WAIT_MS, or falls MAX_QUEUED
// statements behind, is let go (its EventSource reconnects from its last
// event): nothing is buffered without bound. A comment line every
// HEARTBEAT_MS keeps proxies from closing a quiet feed. A feed ends when
// its worker shuts down; the reader reconnects to another.

const { errors } = require('../errors')
const statementParameters = require('../resources/statements/statement-parameters')
const { renderStatements } = require('../resources/statements/read-statements')
const { authorityFor } = require('../auth/authenticate')
const { readsOnlyOwnStatements } = require('../auth/scopes')
const { agentKey } = require('../resources/agents/agent-keys')
const { header, response } = require('../http/openapi-parts')
const { statementTails } = require('./statement-tail')
const { feedFilter } = require('./feed-filter')

const FILTERS = ['agent', 'verb', 'activity', 'registration', 'related_activities', 'related_agents', 'since', 'format']
const QUERY = Object.fromEntries(FILTERS.map((name) => [name, statementParameters.GET[name]]))
const PAGE = 100
const HEARTBEAT_MS = 15000
const DRAIN_WAIT_MS = 30000
const RETRY_MS = 1000 // what EventSource waits before it reconnects
const ERROR_BACKOFF_MAX_MS = 5000
const MAX_QUEUED = 10000 // statements handed to a feed and not yet written
const IDLE_CHECK_MS = 1000

function feedRoutes ({ config, validator, statementReader, moreCursor, lifecycle, logger }) {
  const parse = statementParameters.statementQuery(validator)
  const tails = statementTails({ config, statementReader, moreCursor, logger })
  const order = statementReader.order
  const openFeeds = new Map() // credential -> feeds open on this worker

  async function run (req, res, { query, format, after, scope, store }) {
    const matches = feedFilter(query, scope)
    const acceptLanguage = req.headers['accept-language']
    let closed = false
    let wake = () => {}
    const sleep = (ms) => new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      wake = () => { clearTimeout(timer); resolve() }
    })
    res.on('close', () => { closed = true; wake() }) // the reader left (or the connection broke)
    let lastWrite = Date.now()
    // false: the reader took nothing for DRAIN_WAIT_MS, or left
    const write = (text) => {
      lastWrite = Date.now()
      if (res.write(text)) return true
      return new Promise((resolve) => {
        const done = (drained) => {
          clearTimeout(timer)
          res.off('drain', onDrain)
          res.off('close', onClose)
          resolve(drained)
        }
        const onDrain = () => done(true)
        const onClose = () => done(false)
        const timer = setTimeout(() => done(false), DRAIN_WAIT_MS)
        res.on('drain', onDrain)
        res.on('close', onClose)
      })
    }

    // the last event sent (a row's position), or what is stored after `since`
    let sent = after
    let since = after ? undefined : (query.since || new Date(Date.now() - tails.behindMs))
    const isNew = (row) => sent ? order.compare(row, sent) > 0 : row.stored > since
    // `items`: [{ row, eventId }] (a tail's items also carry `rendered`)
    const send = (items) => {
      const key = format + '\n' + (acceptLanguage || '')
      const pieces = items.map((item) => {
        let text = item.rendered && item.rendered.get(key)
        if (text === undefined) {
          text = renderStatements([item.row], { format, acceptLanguage })[0]
          if (item.rendered) item.rendered.set(key, text)
        }
        return `id: ${item.eventId}\nevent: statement\ndata: ${text}\n\n`
      })
      sent = items[items.length - 1].row
      since = undefined
      return write(pieces.join(''))
    }

    // The feed's own queries, page after page, up to the first row
    // `stopAt` names (or the end). false: the reader is gone.
    async function readOwn (stopAt) {
      let failures = 0
      while (!closed && !lifecycle.shuttingDown) {
        let page
        try {
          page = await statementReader.getPage({ ...query, since, until: new Date(Date.now() - tails.behindMs), ascending: true, limit: PAGE }, sent, scope)
          failures = 0
        } catch (err) {
          // the database away or slow: the feed waits for it, heartbeats on
          failures++
          logger.warn({ err, reqId: req.id }, 'live feed could not read the store; trying again')
          if (Date.now() - lastWrite > HEARTBEAT_MS && !await write(': waiting for the store\n\n')) return false
          await sleep(Math.min(ERROR_BACKOFF_MAX_MS, config.feedPollMs * 2 ** failures))
          continue
        }
        const stop = stopAt ? page.rows.findIndex(stopAt) : -1
        const rows = stop === -1 ? page.rows : page.rows.slice(0, stop)
        if (rows.length) {
          const items = []
          for (const row of rows) items.push({ row, eventId: await moreCursor.encodePosition(row, { store }) })
          if (!await send(items)) return false
        }
        if (stop !== -1 || page.rows.length < PAGE) return true
      }
      return false
    }

    await write(`retry: ${RETRY_MS}\n: feed open\n\n`)
    // what it missed (Last-Event-ID, since) on its own, then the tail's
    if (!await readOwn(null)) return
    const queue = []
    let behind = false
    const subscription = tails.subscribe({ store, scopeStore: scope.store }, (items) => {
      if (behind) return
      queue.push(...items)
      if (queue.length > MAX_QUEUED) behind = true
      wake()
    })
    try {
      // what was stored between its last page and the tail's position when it joined
      if (!await readOwn(subscription.isAfter)) return
      while (!closed && !lifecycle.shuttingDown && !behind) {
        if (!queue.length) {
          if (Date.now() - lastWrite > HEARTBEAT_MS && !await write(': keep-alive\n\n')) break
          await sleep(IDLE_CHECK_MS)
          continue
        }
        const chosen = []
        for (const item of queue.splice(0, queue.length)) {
          if (isNew(item.row) && await matches(item)) chosen.push(item)
        }
        if (chosen.length && !await send(chosen)) break
      }
      // let go, behind: it reconnects and resumes from its last event
      if (behind && !closed) res.write(': too far behind; reconnect with Last-Event-ID\n\n')
    } finally {
      subscription.unsubscribe()
    }
  }

  return [{
    method: 'get',
    path: '/statements',
    operationId: 'getFeedStatements',
    summary: 'A live feed of the store\'s new statements (Server-Sent Events)',
    description: 'Each statement stored from now on (or after `since`, or after the event named by `Last-Event-ID`) that matches the filters and that the credential may read, in stored order, as an event `statement` whose data is the statement and whose id resumes the feed just after it. ' +
      'Statements are sent once they are stored (within about LRS_FEED_POLL_MS) on SQLite, once they are consistent (about LRS_CONSISTENCY_MARGIN_MS + LRS_CLOCK_SKEW_MS after they were stored) on MongoDB, whichever worker or host stored them; voided statements are not sent. ' +
      'With `all`, `all/read` or `statements/read`: the store\'s statements; with `statements/read/mine`: those stored with this credential. ' +
      'A comment line every 15 s keeps the connection through proxies; a reader that takes nothing for 30 s, or falls 10,000 statements behind, is disconnected and resumes with Last-Event-ID. At most LRS_FEED_MAX_PER_CREDENTIAL open feeds per credential and worker.',
    scope: 'statements:read',
    query: QUERY,
    parameters: [header('Last-Event-ID', { type: 'string' }, 'The id of the last event received: the feed goes on just after it (EventSource sends it when it reconnects).')],
    responses: { 200: response('An event stream (text/event-stream) of `statement` events.', { content: { 'text/event-stream': { schema: { type: 'string' } } } }) },
    errors: [errors.InvalidParameter, errors.FeedLimit],
    async handler (req, res, { query: params }) {
      const store = req.credential.store || 0
      const { query, format } = parse(params, { xapiVersion: '2.0.0', maxLimit: PAGE })
      const scope = { store: req.credential.store, authorityKey: readsOnlyOwnStatements(req.credential.scopes) ? agentKey(authorityFor(req.credential, config)) : null }
      let after = null
      const lastEventId = req.headers['last-event-id']
      if (lastEventId !== undefined && lastEventId !== '') {
        after = await moreCursor.decodePosition(String(lastEventId), { store })
        if (!after) throw errors.InvalidParameter('Last-Event-ID is not the id of an event of this store\'s feed')
      }
      const holder = req.credential.key || JSON.stringify(authorityFor(req.credential, config))
      const open = openFeeds.get(holder) || 0
      if (open >= config.feedMaxPerCredential) throw errors.FeedLimit()
      // Connection: close: a feed's connection is not reused, and one that
      // ends at a shutdown is not left open as an idle keep-alive one
      res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no', Connection: 'close' })
      if (req.method === 'HEAD') return res.end()
      openFeeds.set(holder, open + 1)
      try {
        await run(req, res, { query, format, after, scope, store })
      } finally {
        const left = openFeeds.get(holder) - 1
        if (left) openFeeds.set(holder, left)
        else openFeeds.delete(holder)
        res.end()
      }
    }
  }]
}

module.exports = { feedRoutes }
