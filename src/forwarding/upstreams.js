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
  url.hash = '' // where a stored URL keeps its credentials sealed (sealed-urls.js)
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

// Which upstream ids get an outbox entry for a statement's `record`
// (`forwardTo` as createUpstreams gives it; the storage engines use this):
// the LRS-wide ones, its store's, and its store's forwarders whose filter
// it matches (forwarder-filter.js). A list (what callers from before stores
// had upstreams send, such as an older checkout's bench) is every
// statement's.
const NONE = Object.freeze([])
function upstreamsFor (forwardTo, record) {
  if (!forwardTo) return NONE
  if (Array.isArray(forwardTo)) return forwardTo
  const store = record.store || 0
  const own = forwardTo.byStore[store]
  const filtered = forwardTo.filtered && forwardTo.filtered[store]
  let list = !own ? forwardTo.all : forwardTo.all.length ? [...forwardTo.all, ...own] : own
  if (filtered) {
    for (const f of filtered) if (f.test(record)) list = [...list, f.id]
  }
  return list
}

function createUpstreams ({ config, storage, credentials, logger, sealed }) {
  // here, not at the top: forwarders.js checks URLs with upstreamProblem from this module
  const { toUpstream, compileFilter } = require('./forwarders')
  const { openUpstreamUrl, hasPlainCredentials } = require('./sealed-urls')
  const lrsWide = config.forwardUrls.map((u) => parseUpstream(u))
  let byStore = new Map() // store number -> its upstreams (forwardUrls)
  let forwarders = [] // every store's forwarders, as upstreams (forwarders.js)
  let forwardTo = { all: lrsWide.map((u) => u.id), byStore: {} }
  let seenGeneration = null
  let reading = null
  const timers = []
  let known = false // read once: the write path reads them first otherwise
  let warnedPlain = false

  async function read () {
    const generation = credentials.generation()
    const [stores, made] = await Promise.all([storage.stores.all(), storage.forwarders.all()])
    const next = new Map()
    let plain = 0
    for (const s of stores) {
      const upstreams = (s.forwardUrls || []).map((u) => {
        if (hasPlainCredentials(u)) plain++
        try {
          return { ...parseUpstream(openUpstreamUrl(u, sealed), s.number), storeId: s.id }
        } catch (err) {
          // sealed with a key this process does not hold: not sent, said why
          return { ...parseUpstream(u, s.number), storeId: s.id, problem: `its credentials cannot be opened: ${err.message}` }
        }
      })
      if (upstreams.length) next.set(s.number, upstreams)
    }
    if (plain && !warnedPlain) {
      warnedPlain = true
      logger.warn({ upstreams: plain }, sealed.available ? 'store upstream credentials kept in plain text: run "lrs secrets reseal" to seal them under LRS_SECRETS_KEY' : 'store upstream credentials kept in plain text: set LRS_SECRETS_KEY and run "lrs secrets reseal" to seal them')
    }
    const ids = Object.fromEntries([...next].map(([n, list]) => [n, list.map((u) => u.id)]))
    const filtered = {}
    const nextForwarders = []
    for (const f of made) {
      const upstream = toUpstream(f, sealed)
      nextForwarders.push(upstream)
      const test = compileFilter(f.definition.filter)
      if (test) (filtered[f.store] ||= []).push({ id: upstream.id, test })
      else (ids[f.store] ||= []).push(upstream.id)
    }
    byStore = next
    forwarders = nextForwarders
    forwardTo = { all: lrsWide.map((u) => u.id), byStore: ids, filtered }
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
    // Every upstream the forwarder delivers to now (a paused forwarder's
    // statements wait in its queue).
    all: () => [...lrsWide, ...[...byStore.values()].flat(), ...forwarders.filter((f) => !f.paused)],
    lrsWide: () => lrsWide,
    ofStore: (store) => byStore.get(store) || NONE,
    forwardersOf: (store) => forwarders.filter((f) => f.store === store)
  }
}

module.exports = { createUpstreams, parseUpstream, upstreamProblem, upstreamsFor, storeUpstreamPrefix, MAX_PER_STORE }
