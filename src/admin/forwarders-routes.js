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
const { FORWARDER_BODY, MAX_PER_STORE } = require('../forwarding/forwarders')
const { forwarderAdmin, MAX_DEAD_LETTERS: MAX_LIST, DEAD_LETTER_ACTIONS } = require('../forwarding/forwarder-admin')

const idParam = { id: { schema: { type: 'string', maxLength: 64 }, description: 'The forwarder\'s id.' } }
const LIMIT = { limit: { schema: { type: 'integer', minimum: 1, maximum: MAX_LIST, description: `an integer from 1 to ${MAX_LIST}` }, default: MAX_LIST, description: 'At most this many.' } }
const etagOf = (f) => `"r${f.revision}"`

// What a route does beyond HTTP (the rules, the writes, the audit lines,
// what is shown) is forwarder-admin.js's, which `lrs forwarder` shares.
function forwardersRoutes ({ storage, upstreams, sealed, hosts, validator }) {
  const admin = forwarderAdmin({ storage, sealed, hosts, validator, changed: () => upstreams.refresh() })
  const storeOf = (req) => req.credential.store || 0
  const one = (req) => admin.one(req.params.id, storeOf(req))
  // the changed forwarder, with its ETag
  const answer = async (res, now) => {
    res.setHeader('ETag', etagOf(now))
    res.json(await admin.show(now))
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
      await answer(res, await admin.setPaused(await one(req), paused, { log: req.log }))
    }
  })
  const deadLetterAction = (action, { field } = DEAD_LETTER_ACTIONS[action]) => ({
    method: 'post',
    path: `/forwarders/:id/dead-letters/${action}`,
    operationId: `${action}ForwarderDeadLetters`,
    summary: action === 'replay' ? 'Put a forwarder\'s dead letters back in its queue' : 'Drop a forwarder\'s dead letters (the statements stay stored)',
    params: idParam,
    query: LIMIT,
    responses: { 200: response(`How many were ${field}.`, { content: json(schema(action === 'replay' ? 'ReplayResult' : 'DiscardResult')) }) },
    errors: [errors.NotFound],
    async handler (req, res, { query }) {
      res.json(await admin.resolveDeadLetters(await one(req), action, { limit: query.limit || MAX_LIST, log: req.log }))
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
      const store = storeOf(req)
      const list = await admin.showAll(await admin.list(store))
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
      const made = await admin.create({ store: storeOf(req), body, log: req.log })
      if (!made) throw errors.NotFound('this credential\'s store is gone')
      const { forwarder, shownSecrets } = made
      res.setHeader('ETag', etagOf(forwarder))
      res.status(201).json({ ...await admin.show(forwarder), ...(shownSecrets && { secrets: shownSecrets }) })
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
      await answer(res, await one(req))
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
      await answer(res, await admin.replace(found, body, { log: req.log }))
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
      await admin.remove(await one(req), { log: req.log })
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
      res.json({ deadLetters: await admin.deadLetters(await one(req), { limit: query.limit || MAX_LIST }) })
    }
  },
  deadLetterAction('replay'),
  deadLetterAction('discard')]
}

module.exports = { forwardersRoutes }
