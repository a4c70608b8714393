'use strict'

// Forwarders under /admin/forwarders, for the `admin` credentials of a
// store (each sees and changes its own store's only):
//   GET    /admin/forwarders              its forwarders, with their queues;
//                                          and the upstreams of the
//                                          configuration (read-only)
//   POST   /admin/forwarders              make one
//   GET    /admin/forwarders/:id          one
//   PUT    /admin/forwarders/:id          change it (If-Match: its ETag)
//   POST   /admin/forwarders/:id/pause    stop delivering (statements still queue)
//   POST   /admin/forwarders/:id/resume
//   DELETE /admin/forwarders/:id          remove it with its queue
//   GET    /admin/forwarders/:id/dead-letters, POST .../replay, .../discard
// A change reaches every worker of every host within LRS_CREDENTIAL_POLL_MS
// (the change mark they poll), this worker at once.

const { errors } = require('../errors')
const { json, schema, response } = require('../http/openapi-parts')
const { FORWARDER_BODY, MAX_PER_STORE, toDefinition, publicView, upstreamIdOf, newForwarderId } = require('../forwarding/forwarders')
const { unqualify } = require('../stores/store-keys')
const { deliveryStatus } = require('../forwarding/delivery-state')

const idParam = { id: { schema: { type: 'string', maxLength: 64 }, description: 'The forwarder\'s id.' } }
const MAX_LIST = 1000
const LIMIT = { limit: { schema: { type: 'integer', minimum: 1, maximum: MAX_LIST, description: `an integer from 1 to ${MAX_LIST}` }, default: MAX_LIST, description: 'At most this many.' } }
const etagOf = (f) => `"r${f.revision}"`

function forwardersRoutes ({ storage, upstreams, sealed, hosts, validator }) {
  const storeIdOf = async (number) => {
    const stores = await storage.stores.all()
    const s = stores.find((x) => x.number === number)
    return s ? s.id : null
  }
  const mine = async (req) => (await storage.forwarders.all()).filter((f) => f.store === (req.credential.store || 0))
  async function one (req) {
    const found = (await mine(req)).find((f) => f.id === req.params.id)
    if (!found) throw errors.NotFound(`no forwarder "${req.params.id}" in this store`)
    return found
  }
  async function view (f, storeId) {
    const upstream = upstreamIdOf(f.store, f.id)
    const [{ queued, oldestEnqueuedAt, deadLetters }, state] = await Promise.all([storage.outbox.stats(upstream), storage.outbox.deliveryState(upstream)])
    const at = (ms) => ms === null || ms === undefined ? null : new Date(ms).toISOString()
    const status = deliveryStatus(state, { paused: f.definition.paused === true })
    return {
      ...publicView(f, { storeId }),
      delivery: {
        status,
        failingSince: status === 'retrying' || status === 'failing' ? at(state.failingSince) : null,
        lastError: state ? state.lastError : null,
        lastErrorAt: at(state && state.lastErrorAt),
        lastDeliveredAt: at(state && state.lastDeliveredAt),
        delivered: state ? state.delivered : 0,
        queued,
        oldestQueuedAt: oldestEnqueuedAt ? oldestEnqueuedAt.toISOString() : null,
        lagSeconds: oldestEnqueuedAt ? Math.max(0, Math.round((Date.now() - oldestEnqueuedAt.getTime()) / 1000)) : 0,
        deadLetters
      }
    }
  }
  // Writes a change made from the forwarder read; 412 when another came first.
  async function change (req, res, found, definition, audit) {
    const outcome = await storage.forwarders.replace({ id: found.id, store: found.store, revision: found.revision, definition })
    if (outcome === 'missing') throw errors.NotFound(`no forwarder "${found.id}" in this store`)
    if (outcome === 'moved') throw errors.PreconditionFailed('the forwarder was changed meanwhile: read it again')
    await upstreams.refresh()
    req.log.info({ audit, forwarder: found.id }, audit.replace(/-/g, ' '))
    const now = (await mine(req)).find((f) => f.id === found.id)
    res.setHeader('ETag', etagOf(now))
    res.json(await view(now, await storeIdOf(now.store)))
  }
  const pauseOrResume = (action, paused) => ({
    method: 'post',
    path: `/forwarders/:id/${action}`,
    operationId: `${action}Forwarder`,
    summary: paused ? 'Pause a forwarder: nothing is delivered, statements still queue' : 'Resume a paused forwarder',
    params: idParam,
    responses: { 200: response('The forwarder.', { content: json(schema('Forwarder')) }) },
    errors: [errors.NotFound, errors.PreconditionFailed],
    async handler (req, res) {
      const found = await one(req)
      await change(req, res, found, { ...found.definition, paused }, `forwarder-${action}d`)
    }
  })
  const deadLetterAction = (action, apply, field) => ({
    method: 'post',
    path: `/forwarders/:id/dead-letters/${action}`,
    operationId: `${action}ForwarderDeadLetters`,
    summary: action === 'replay' ? 'Put a forwarder\'s dead letters back in its queue' : 'Drop a forwarder\'s dead letters (the statements stay stored)',
    params: idParam,
    query: LIMIT,
    responses: { 200: response(`How many were ${field}.`, { content: json(schema(action === 'replay' ? 'ReplayResult' : 'DiscardResult')) }) },
    errors: [errors.NotFound],
    async handler (req, res, { query }) {
      const found = await one(req)
      const count = await apply({ upstreams: [upstreamIdOf(found.store, found.id)], limit: query.limit || MAX_LIST })
      req.log.info({ audit: `forwarder-dead-letters-${field}`, forwarder: found.id, [field]: count }, `dead letters ${field}`)
      res.json({ [field]: count })
    }
  })

  return [{
    method: 'get',
    path: '/forwarders',
    operationId: 'listForwarders',
    summary: 'The store\'s forwarders, with their queues',
    description: 'This store\'s forwarders, and under `configured` the upstreams set otherwise (LRS_FORWARD_URLS for a credential of the default store, the store\'s `forwardUrls`), which are changed where they are set.',
    responses: { 200: response('The forwarders.', { content: json(schema('ForwarderList')) }) },
    async handler (req, res) {
      const store = req.credential.store || 0
      const storeId = await storeIdOf(store)
      const list = await Promise.all((await mine(req)).map((f) => view(f, storeId)))
      const configured = [
        ...(store === 0 ? upstreams.lrsWide().map((u) => ({ upstream: u.name, managedBy: 'LRS_FORWARD_URLS', forwards: 'every store' })) : []),
        ...upstreams.ofStore(store).map((u) => ({ upstream: u.name, managedBy: 'forwardUrls', forwards: 'this store' }))
      ]
      res.json({ forwarders: list, configured })
    }
  }, {
    method: 'post',
    path: '/forwarders',
    operationId: 'createForwarder',
    summary: 'Make a forwarder',
    description: `At most ${MAX_PER_STORE} a store. Statements stored from now on that match its filter are queued for it. A webhook made without secrets gets one, shown in this answer only (\`secrets\`). ` +
      'Secrets need LRS_SECRETS_KEY (409 LRS_ERR_SECRETS_KEY_MISSING otherwise); a target the operator forbids (LRS_FORWARD_FORBIDDEN_HOSTS) is 400.',
    body: { kind: 'json', name: 'ForwarderRequest', schema: FORWARDER_BODY },
    responses: { 201: response('Made.', { content: json(schema('Forwarder')) }) },
    errors: [errors.BadRequest, errors.SecretsKeyMissing, errors.ForwarderLimit],
    async handler (req, res, { body }) {
      const store = req.credential.store || 0
      if ((await mine(req)).length >= MAX_PER_STORE) throw errors.ForwarderLimit(`a store has at most ${MAX_PER_STORE} forwarders`)
      const { definition, shownSecrets } = await toDefinition(body, { sealed, hosts, validator })
      const id = newForwarderId()
      if (!await storage.forwarders.create({ id, store, definition })) throw errors.NotFound('this credential\'s store is gone')
      await upstreams.refresh()
      req.log.info({ audit: 'forwarder-created', forwarder: id, kind: definition.target.kind }, 'forwarder created')
      const made = (await mine(req)).find((f) => f.id === id)
      res.setHeader('ETag', etagOf(made))
      res.status(201).json({ ...await view(made, await storeIdOf(store)), ...(shownSecrets && { secrets: shownSecrets }) })
    }
  }, {
    method: 'get',
    path: '/forwarders/:id',
    operationId: 'getForwarder',
    summary: 'One forwarder, with its queue',
    params: idParam,
    responses: { 200: response('The forwarder.', { content: json(schema('Forwarder')) }) },
    errors: [errors.NotFound],
    async handler (req, res) {
      const found = await one(req)
      res.setHeader('ETag', etagOf(found))
      res.json(await view(found, await storeIdOf(found.store)))
    }
  }, {
    method: 'put',
    path: '/forwarders/:id',
    operationId: 'changeForwarder',
    summary: 'Change a forwarder',
    description: 'The whole forwarder, as when made; secrets left out are kept (the same kind of target and auth). With If-Match (its ETag) the change is made only if nobody changed it since (412 otherwise). A new filter applies to statements stored from now on.',
    params: idParam,
    body: { kind: 'json', name: 'ForwarderRequest', schema: FORWARDER_BODY },
    responses: { 200: response('Changed.', { content: json(schema('Forwarder')) }) },
    errors: [errors.NotFound, errors.BadRequest, errors.SecretsKeyMissing, errors.PreconditionFailed],
    async handler (req, res, { body }) {
      const found = await one(req)
      const ifMatch = req.get('If-Match')
      if (ifMatch && ifMatch !== '*' && !ifMatch.split(',').map((t) => t.trim()).includes(etagOf(found))) throw errors.PreconditionFailed('the forwarder was changed since that ETag: read it again')
      const { definition } = await toDefinition(body, { previous: found.definition, sealed, hosts, validator })
      await change(req, res, found, definition, 'forwarder-changed')
    }
  },
  pauseOrResume('pause', true),
  pauseOrResume('resume', false),
  {
    method: 'delete',
    path: '/forwarders/:id',
    operationId: 'deleteForwarder',
    summary: 'Remove a forwarder, its queue and its dead letters',
    params: idParam,
    responses: { 204: response('Removed.') },
    errors: [errors.NotFound],
    async handler (req, res) {
      const found = await one(req)
      if (!await storage.forwarders.remove({ id: found.id, store: found.store, upstream: upstreamIdOf(found.store, found.id) })) throw errors.NotFound(`no forwarder "${found.id}" in this store`)
      await upstreams.refresh()
      req.log.info({ audit: 'forwarder-deleted', forwarder: found.id }, 'forwarder deleted')
      res.status(204).end()
    }
  }, {
    method: 'get',
    path: '/forwarders/:id/dead-letters',
    operationId: 'listForwarderDeadLetters',
    summary: 'Statements a forwarder\'s target refused for good (or that it gave up on)',
    params: idParam,
    query: LIMIT,
    responses: { 200: response('The dead letters.', { content: json(schema('DeadLetterList')) }) },
    errors: [errors.NotFound],
    async handler (req, res, { query }) {
      const found = await one(req)
      const rows = await storage.outbox.listDeadLetters({ upstreams: [upstreamIdOf(found.store, found.id)], limit: query.limit || MAX_LIST })
      res.json({ deadLetters: rows.map((d) => ({ id: `${found.id} ${unqualify(d.statementId)}`, upstream: found.id, forwards: 'this store', statementId: unqualify(d.statementId), enqueuedAt: d.enqueuedAt, status: d.status, reason: d.reason, failedAt: d.failedAt })) })
    }
  },
  deadLetterAction('replay', (p) => storage.outbox.replayDeadLetters(p), 'replayed'),
  deadLetterAction('discard', (p) => storage.outbox.discardDeadLetters(p), 'discarded')]
}

module.exports = { forwardersRoutes }
