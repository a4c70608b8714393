'use strict'

// The new statements of a store, read once per worker for every live feed
// of that store (feed-routes.js): one query each LRS_FEED_POLL_MS however
// many feeds are open, each statement parsed, its query fields worked out
// and its event id sealed once. Feeds filter what the tail hands them
// (feed-filter.js); 200 feeds asking the store each for themselves cost
// the workers more than the ingest they watch.
//
// The tail reads in stored order after the last position it read. Where
// statements become visible in stored order (one writer: SQLite) that
// misses nothing and needs no margin; where they may not (several workers
// and hosts inserting at once: MongoDB) it stays LRS_CONSISTENCY_MARGIN_MS
// + LRS_CLOCK_SKEW_MS behind, as X-Experience-API-Consistent-Through does.

const { queryFields } = require('../resources/statements/query-fields')
const { agentKey } = require('../resources/agents/agent-keys')
const { BoundedMap } = require('../lib/bounded-map')

const PAGE = 500
const ERROR_BACKOFF_MAX_MS = 5000
// the chain of StatementRefs followed to see whether a target matches
const MAX_REF_HOPS = 10
// Where statements may become visible late, a batch later than the margin
// is given a new stored time (write-batch.js): a tail that read it at the
// first is handed it again at the second. It remembers this many ids it
// handed out to let the second go.
const RECENT_IDS = 50000

function statementTails ({ config, statementReader, moreCursor, logger }) {
  const order = statementReader.order
  const behindMs = order.visibleInStoredOrder ? 0 : config.consistencyMarginMs + config.clockSkewMs
  const tails = new Map() // store key -> tail

  // A row as feeds see it: the statement once parsed, its query fields,
  // its authority's key, its event id; the fields of what it targets
  // through StatementRefs, read when a filter asks.
  async function itemOf (row, store, scopeStore) {
    const statement = JSON.parse(row.body)
    let targets = null
    return {
      row,
      statement,
      fields: queryFields(statement, statement.authority),
      authorityKey: statement.authority ? agentKey(statement.authority) : null,
      eventId: await moreCursor.encodePosition(row, { store }),
      rendered: new Map(), // format and language -> its text, rendered once for every feed
      targets () {
        if (!targets) targets = targetFields(statement, scopeStore)
        return targets
      }
    }
  }

  async function targetFields (statement, scopeStore) {
    const found = []
    let object = statement.object
    for (let hop = 0; hop < MAX_REF_HOPS && object && object.objectType === 'StatementRef'; hop++) {
      const row = await statementReader.findTarget(String(object.id).toLowerCase(), { store: scopeStore })
      if (!row) break
      const target = JSON.parse(row.body)
      found.push(queryFields(target, target.authority))
      object = target.object
    }
    return found
  }

  function startTail (key, { store, scopeStore }) {
    const tail = {
      subscribers: new Set(),
      // where it reads from next: after `last` (a row), or what is stored
      // after `since`. A statement's stored time is stamped before its write,
      // which may commit later than a tail starts: `since` is the margin
      // back within which every statement is visible (write-batch.js
      // restamps one that is not), on SQLite too; once it has read a row
      // the tail goes on by position, which commits follow.
      last: null,
      since: new Date(Date.now() - config.consistencyMarginMs - config.clockSkewMs),
      wake: null,
      handed: order.visibleInStoredOrder ? null : new BoundedMap(RECENT_IDS)
    }
    // true when `row` comes after what the tail has handed out (or will hand out from now on)
    tail.isAfter = (row) => tail.last ? order.compare(row, tail.last) > 0 : row.stored > tail.since

    const sleep = (ms) => new Promise((resolve) => {
      const timer = setTimeout(resolve, ms)
      tail.wake = () => { clearTimeout(timer); resolve() }
    })
    // started by its first subscriber
    tail.run = async () => {
      let failures = 0
      while (tail.subscribers.size) {
        let page
        const items = []
        try {
          page = await statementReader.getPage({ since: tail.last ? undefined : tail.since, until: new Date(Date.now() - behindMs), ascending: true, limit: PAGE }, tail.last, { store: scopeStore, authorityKey: null })
          for (const row of page.rows) {
            if (tail.handed && tail.handed.has(row.id)) continue
            if (tail.handed) tail.handed.set(row.id, true)
            items.push(await itemOf(row, store, scopeStore))
          }
          failures = 0
        } catch (err) {
          failures++
          logger.warn({ err, store }, 'live feed could not read the store; trying again')
          await sleep(Math.min(ERROR_BACKOFF_MAX_MS, config.feedPollMs * 2 ** failures))
          continue
        }
        if (page.rows.length) tail.last = page.rows[page.rows.length - 1]
        if (items.length) for (const subscriber of tail.subscribers) subscriber(items)
        if (page.rows.length < PAGE) await sleep(config.feedPollMs)
      }
      tails.delete(key)
    }
    return tail
  }

  return {
    behindMs,
    // Hands `subscriber` each batch of the store's new statements, in
    // stored order, from now on. Returns { isAfter(row): whether the tail
    // hands it that row (false: it was handed out before, or is not yet
    // stored), unsubscribe() }.
    subscribe ({ store, scopeStore }, subscriber) {
      const key = String(store)
      let tail = tails.get(key)
      if (!tail) {
        tail = startTail(key, { store, scopeStore })
        tails.set(key, tail)
        tail.subscribers.add(subscriber)
        tail.run()
      } else tail.subscribers.add(subscriber)
      const last = tail.last
      const since = tail.since
      return {
        // the tail's position when this feed joined: rows after it come from the tail
        isAfter: (row) => last ? order.compare(row, last) > 0 : row.stored > since,
        unsubscribe () {
          tail.subscribers.delete(subscriber)
          if (!tail.subscribers.size && tail.wake) tail.wake()
        }
      }
    }
  }
}

module.exports = { statementTails }
