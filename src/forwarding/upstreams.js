'use strict'

// Where stored statements are forwarded. Two kinds of upstream:
//   LRS-wide   LRS_FORWARD_URLS: every store's statements (the operator's
//              data warehouse, a mirror of the whole LRS)
//   a store's  set on the store (PUT /admin/stores/{id} `forwardUrls`, by a
//              `stores/admin` credential): that store's statements only,
//              so one organisation's statements reach its own LRS and no
//              other's
// Each upstream has an id, which keys its outbox entries and dead letters:
// the endpoint without scheme or credentials for an LRS-wide one (as it
// always was), 's<n>|' and that for store n's, so two stores may forward
// to the same endpoint under their own credentials, and a store's entries
// can be found (and dropped with the store) by their prefix.
//
// Every worker keeps the stores' upstreams in memory (the write path asks
// for them on every batch), read again whenever the credentials-or-stores
// change mark moves (credential-store.js polls it every
// LRS_CREDENTIAL_POLL_MS), and every LRS_CREDENTIAL_REFRESH_S in any case.

const MAX_PER_STORE = 5

function parseUpstream (raw, store = null) {
  const url = new URL(raw)
  const auth = url.username ? 'Basic ' + Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64') : null
  url.username = ''
  url.password = ''
  const base = url.toString().replace(/\/+$/, '')
  const name = base.replace(/^[a-z]+:\/\//i, '')
  return { id: store === null ? name : storeUpstreamId(store, name), name, store, endpoint: base + '/statements', shown: base, auth }
}

const storeUpstreamId = (store, name) => `s${store}|${name}`
// The prefix of every upstream id of store n (outbox entries dropped with it).
const storeUpstreamPrefix = (store) => storeUpstreamId(store, '')

// Why `raw` cannot be an upstream, or null. An upstream is an xAPI
// endpoint: http(s), no query or fragment (its resources are appended).
function upstreamProblem (raw) {
  let url
  try { url = new URL(raw) } catch { return 'is not a URL' }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be http or https'
  if (url.search || url.hash) return 'must have no query or fragment'
  if (url.username && !url.password) return 'has a user but no password'
  return null
}

// Which upstream ids get an outbox entry for a statement of `store`
// (`forwardTo` as createUpstreams gives it; the storage engines use this).
// A list (what callers from before stores had upstreams send, such as an
// older checkout's bench) is every statement's.
const NONE = Object.freeze([])
function upstreamsFor (forwardTo, store) {
  if (!forwardTo) return NONE
  if (Array.isArray(forwardTo)) return forwardTo
  const own = forwardTo.byStore[store || 0]
  if (!own) return forwardTo.all
  return forwardTo.all.length ? [...forwardTo.all, ...own] : own
}

function createUpstreams ({ config, storage, credentials, logger }) {
  const lrsWide = config.forwardUrls.map((u) => parseUpstream(u))
  let byStore = new Map() // store number -> its upstreams
  let forwardTo = { all: lrsWide.map((u) => u.id), byStore: {} }
  let seenGeneration = null
  let reading = null
  const timers = []
  let known = false // read once: the write path reads them first otherwise

  async function read () {
    const generation = credentials.generation()
    const stores = await storage.stores.all()
    const next = new Map()
    for (const s of stores) {
      const upstreams = (s.forwardUrls || []).map((u) => ({ ...parseUpstream(u, s.number), storeId: s.id }))
      if (upstreams.length) next.set(s.number, upstreams)
    }
    byStore = next
    forwardTo = { all: lrsWide.map((u) => u.id), byStore: Object.fromEntries([...next].map(([n, list]) => [n, list.map((u) => u.id)])) }
    seenGeneration = generation
    known = true
  }

  function refresh () {
    if (!reading) reading = read().finally(() => { reading = null })
    return reading
  }

  function refreshLogged ({ always }) {
    if (!always && credentials.generation() === seenGeneration) return
    refresh().catch((err) => logger.warn({ err }, 'reading the stores\' upstreams failed'))
  }

  return {
    async start () {
      await refresh().catch((err) => logger.warn({ err }, 'reading the stores\' upstreams failed'))
      timers.push(setInterval(refreshLogged, config.credentialPollMs, { always: false }), setInterval(refreshLogged, config.credentialRefreshS * 1000, { always: true }))
      for (const t of timers) t.unref()
    },
    stop () {
      for (const t of timers) clearInterval(t)
    },
    refresh,
    // For the write path: { all: LRS-wide ids, byStore: { n: ids } }, read
    // first if they never were (no statement of a store with upstreams is
    // stored before they are known).
    async forwardTo () {
      if (!known) await refresh()
      return forwardTo
    },
    // Every upstream the forwarder delivers to now.
    all: () => [...lrsWide, ...[...byStore.values()].flat()],
    lrsWide: () => lrsWide,
    ofStore: (store) => byStore.get(store) || NONE
  }
}

module.exports = { createUpstreams, parseUpstream, upstreamProblem, upstreamsFor, storeUpstreamPrefix, MAX_PER_STORE }
