'use strict'

// Managing forwarders (forwarders.js), whoever asks: a store's admin
// through /admin/forwarders (src/admin/forwarders-routes.js) and the
// operator through `lrs forwarder` (src/cli/forwarder.js). The same rules
// for both: a definition checked against FORWARDER_BODY and then by
// toDefinition (the target's URL, LRS_FORWARD_FORBIDDEN_HOSTS, secrets
// sealed under LRS_SECRETS_KEY), at most MAX_PER_STORE a store, a change
// written only over the revision it was made from, and a forwarder shown
// without its secrets, with how its delivery goes.
//
// Every write goes through storage.forwarders, which moves the change mark
// every worker of every host polls (LRS_CREDENTIAL_POLL_MS; upstreams.js
// reads the forwarders again): a change from the API or from a shell
// reaches the running LRS without a restart. `changed()`: what the caller
// does besides (the API's worker reads them again at once). Each change
// writes its audit line on the `log` the caller gives (the request's, or
// the CLI's audit logger), never with a secret.

const { errors } = require('../errors')
const { checkBody } = require('../validation/json-body')
const { FORWARDER_BODY, MAX_PER_STORE, toDefinition, publicView, upstreamIdOf, newForwarderId } = require('./forwarders')
const { deliveryStatus, circuitOpen } = require('./delivery-state')
const { unqualify } = require('../stores/store-keys')

const MAX_DEAD_LETTERS = 1000 // a page of dead letters read, replayed or discarded
const checkDefinition = checkBody(FORWARDER_BODY)
const DEAD_LETTER_ACTIONS = {
  replay: { field: 'replayed', apply: (outbox, p) => outbox.replayDeadLetters(p) },
  discard: { field: 'discarded', apply: (outbox, p) => outbox.discardDeadLetters(p) }
}

const iso = (ms) => ms === null || ms === undefined ? null : new Date(ms).toISOString()

function forwarderAdmin ({ storage, sealed, hosts, validator, changed = async () => {} }) {
  const all = () => storage.forwarders.all()
  // store number -> store id ('default' and the others), as shown
  const storeIds = async () => new Map((await storage.stores.all()).map((s) => [s.number, s.id]))

  // Store n's forwarders; `null`: every store's.
  async function list (store = null) {
    const every = await all()
    return store === null ? every : every.filter((f) => f.store === store)
  }

  // The forwarder `id` of store n (of any store: `null`), or NotFound.
  async function one (id, store = null) {
    const found = (await list(store)).find((f) => f.id === id)
    if (!found) throw errors.NotFound(store === null ? `no forwarder "${id}"` : `no forwarder "${id}" in this store`)
    return found
  }

  // What is shown of a forwarder: publicView (never a secret) and its delivery.
  async function view (f, storeId) {
    const upstream = upstreamIdOf(f.store, f.id)
    const [{ queued, oldestEnqueuedAt, deadLetters }, state] = await Promise.all([storage.outbox.stats(upstream), storage.outbox.deliveryState(upstream)])
    const status = deliveryStatus(state, { paused: f.definition.paused === true })
    return {
      ...publicView(f, { storeId }),
      delivery: {
        status,
        failingSince: status === 'retrying' || status === 'failing' ? iso(state.failingSince) : null,
        lastError: state ? state.lastError : null,
        circuit: circuitOpen(state, { probeMs: (f.definition.retry && f.definition.retry.maxBackoffMs) || 60000 }) ? 'open' : 'closed',
        lastErrorAt: iso(state && state.lastErrorAt),
        lastDeliveredAt: iso(state && state.lastDeliveredAt),
        delivered: state ? state.delivered : 0,
        queued,
        oldestQueuedAt: oldestEnqueuedAt ? oldestEnqueuedAt.toISOString() : null,
        lagSeconds: oldestEnqueuedAt ? Math.max(0, Math.round((Date.now() - oldestEnqueuedAt.getTime()) / 1000)) : 0,
        deadLetters
      }
    }
  }

  async function show (f) {
    return view(f, (await storeIds()).get(f.store) ?? null)
  }

  async function showAll (forwarders) {
    const ids = await storeIds()
    return Promise.all(forwarders.map((f) => view(f, ids.get(f.store) ?? null)))
  }

  // A new forwarder of store n from `body` (the API's ForwarderRequest):
  // { forwarder, shownSecrets } (a webhook's signing secret made here, to
  // be shown once), or null when the store is gone.
  async function create ({ store, body, log }) {
    checkDefinition(body)
    if ((await list(store)).length >= MAX_PER_STORE) throw errors.ForwarderLimit(`a store has at most ${MAX_PER_STORE} forwarders`)
    const { definition, shownSecrets } = await toDefinition(body, { sealed, hosts, validator })
    const id = newForwarderId()
    if (!await storage.forwarders.create({ id, store, definition })) return null
    await changed()
    log.info({ audit: 'forwarder-created', forwarder: id, kind: definition.target.kind }, 'forwarder created')
    return { forwarder: (await list(store)).find((f) => f.id === id), shownSecrets }
  }

  // Writes `definition` over the forwarder as it was read (`found`);
  // 412 when another change came first. The forwarder as it is now.
  async function write (found, definition, audit, log) {
    const outcome = await storage.forwarders.replace({ id: found.id, store: found.store, revision: found.revision, definition })
    if (outcome === 'missing') throw errors.NotFound(`no forwarder "${found.id}" in this store`)
    if (outcome === 'moved') throw errors.PreconditionFailed('the forwarder was changed meanwhile: read it again')
    await changed()
    log.info({ audit, forwarder: found.id }, audit.replace(/-/g, ' '))
    return (await list(found.store)).find((f) => f.id === found.id)
  }

  // The whole forwarder again, as when made; secrets left out are kept.
  async function replace (found, body, { log }) {
    checkDefinition(body)
    const { definition } = await toDefinition(body, { previous: found.definition, sealed, hosts, validator })
    return write(found, definition, 'forwarder-changed', log)
  }

  // Paused: nothing delivered, statements still queued (and sent once resumed).
  function setPaused (found, paused, { log }) {
    return write(found, { ...found.definition, paused }, paused ? 'forwarder-paused' : 'forwarder-resumed', log)
  }

  // The forwarder goes with its queue and dead letters.
  async function remove (found, { log }) {
    if (!await storage.forwarders.remove({ id: found.id, store: found.store, upstream: upstreamIdOf(found.store, found.id) })) throw errors.NotFound(`no forwarder "${found.id}" in this store`)
    await changed()
    log.info({ audit: 'forwarder-deleted', forwarder: found.id }, 'forwarder deleted')
  }

  // Statements its target refused for good (or that it gave up on).
  async function deadLetters (found, { limit = MAX_DEAD_LETTERS } = {}) {
    const rows = await storage.outbox.listDeadLetters({ upstreams: [upstreamIdOf(found.store, found.id)], limit })
    return rows.map((d) => ({ id: `${found.id} ${unqualify(d.statementId)}`, upstream: found.id, forwards: 'this store', statementId: unqualify(d.statementId), enqueuedAt: d.enqueuedAt, status: d.status, reason: d.reason, failedAt: d.failedAt }))
  }

  // `action` 'replay' (back in its queue) or 'discard' (dropped; the
  // statements stay stored): { replayed: n } or { discarded: n }.
  async function resolveDeadLetters (found, action, { limit = MAX_DEAD_LETTERS, log }) {
    const { field, apply } = DEAD_LETTER_ACTIONS[action]
    const count = await apply(storage.outbox, { upstreams: [upstreamIdOf(found.store, found.id)], limit })
    log.info({ audit: `forwarder-dead-letters-${field}`, forwarder: found.id, [field]: count }, `dead letters ${field}`)
    return { [field]: count }
  }

  return { list, one, show, showAll, create, replace, setPaused, remove, deadLetters, resolveDeadLetters }
}

module.exports = { forwarderAdmin, MAX_DEAD_LETTERS, DEAD_LETTER_ACTIONS }
