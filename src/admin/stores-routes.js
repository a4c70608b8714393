'use strict'

// Stores under /admin/stores, for credentials with `stores/admin`:
//   GET    /admin/stores        list, with what each holds, and the deleted
//                                ones still being purged
//   POST   /admin/stores        create
//   GET    /admin/stores/:id    one store: what it holds, which is what its
//                                deletion would remove (the preview)
//   PUT    /admin/stores/:id    rename (its id stays), set its retention
//   DELETE /admin/stores/:id?confirm=<id>   delete: gone at once for every
//                                request, its data purged in the background
// A store's data is kept apart from every other's (src/stores/store-keys.js);
// a credential belongs to one (POST /admin/credentials, `store`).

const { errors } = require('../errors')
const { json, schema, response } = require('../http/openapi-parts')
const { storeDirectory, STORE_ID } = require('../stores/store-directory')
const { MAX_PER_STORE } = require('../forwarding/upstreams')
const { upstreamListProblem, replaceStoreUpstreams } = require('../forwarding/store-upstreams')

const FORWARD_URLS = {
  type: 'array',
  maxItems: MAX_PER_STORE,
  uniqueItems: true,
  items: { type: 'string', minLength: 1, maxLength: 2000 },
  description: `Upstream LRS endpoints (https://user:pass@host/xapi) this store's statements are forwarded to, with their ids, besides LRS_FORWARD_URLS: at most ${MAX_PER_STORE}, http or https, no query. ` +
    'Only statements stored after the change are forwarded; [] stops, and drops what was queued for an upstream no longer listed. The credentials are kept in the database and never shown.'
}

const CREATE_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: {
    id: { type: 'string', pattern: STORE_ID, description: 'How the API names the store, for good: lower-case letters, digits and dashes.' },
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'What people see; the id when omitted.' },
    retentionDays: { type: ['integer', 'null'], minimum: 1, maximum: 36500, description: 'Statements are kept this many days after they were stored, then removed in the background (LRS_RETENTION_INTERVAL_S); null or omitted: kept for good.' },
    forwardUrls: FORWARD_URLS
  }
}

const RETENTION_DAYS = { type: ['integer', 'null'], minimum: 1, maximum: 36500, description: 'Statements are kept this many days after they were stored, then removed in the background (LRS_RETENTION_INTERVAL_S); null: kept for good.' }
const CHANGE_BODY = { type: 'object', additionalProperties: false, minProperties: 1, properties: { name: CREATE_BODY.properties.name, retentionDays: RETENTION_DAYS, forwardUrls: FORWARD_URLS } }
const idParam = { id: { schema: { type: 'string' }, description: 'The store\'s id.' } }
const CONFIRM = { confirm: { schema: { type: 'string', maxLength: 64 }, description: 'The store\'s id again: a deletion cannot be undone.' } }

// 400 for a URL that cannot be an upstream (the schema checks the list's shape).
function checkUpstreams (urls) {
  const problem = upstreamListProblem(urls, (i) => `forwardUrls[${i}]`)
  if (problem) throw errors.BadRequest(problem)
}

// Sets a store's upstreams. This worker forwards to them at once, the
// others within LRS_CREDENTIAL_POLL_MS. false when there is no such store.
async function setForwarding ({ storage, upstreams, sealed }, store, urls) {
  if (!await replaceStoreUpstreams(storage, store, urls, sealed)) return false
  await upstreams.refresh()
  return true
}

function storesRoutes ({ storage, upstreams, sealed }) {
  const directory = storeDirectory(storage)
  return [{
    method: 'get',
    path: '/stores',
    scope: 'stores',
    operationId: 'listStores',
    summary: 'List stores',
    responses: { 200: response('The stores.', { content: json(schema('StoreList')) }) },
    async handler (req, res) {
      const [stores, deleting] = await Promise.all([directory.all().then(directory.describeAll), directory.deleting()])
      res.json({ stores, deleting })
    }
  }, {
    method: 'get',
    path: '/stores/:id',
    scope: 'stores',
    operationId: 'getStore',
    summary: 'One store, with what it holds',
    description: 'What it holds is what deleting it would remove: its statements, documents, attachments and credentials.',
    params: idParam,
    responses: { 200: response('The store.', { content: json(schema('Store')) }) },
    errors: [errors.NotFound],
    async handler (req, res) {
      res.json(await directory.describe(await directory.byId(req.params.id)))
    }
  }, {
    method: 'post',
    path: '/stores',
    scope: 'stores',
    operationId: 'createStore',
    summary: 'Create a store',
    description: 'A store is empty when made; give it credentials (POST /admin/credentials with `store`). 409 LRS_ERR_STORE_EXISTS for an id in use, LRS_ERR_STORE_LIMIT past the stores the engine holds (SQLite: 2,047 besides the default one).',
    body: { kind: 'json', name: 'StoreRequest', schema: CREATE_BODY },
    responses: { 201: response('Created.', { content: json(schema('Store')) }) },
    errors: [errors.StoreExists, errors.StoreLimit, errors.BadRequest],
    async handler (req, res, { body }) {
      if (body.forwardUrls) checkUpstreams(body.forwardUrls)
      const name = body.name || body.id
      const made = await storage.stores.create({ id: body.id, name })
      if (made === 'taken') throw errors.StoreExists()
      if (made === 'full') throw errors.StoreLimit('this LRS holds as many stores as its engine can (SQLite: 2,047, the default one included)')
      if (body.retentionDays) await storage.stores.setRetention({ id: body.id, days: body.retentionDays })
      if (body.forwardUrls && body.forwardUrls.length) await setForwarding({ storage, upstreams, sealed }, await directory.byId(body.id), body.forwardUrls)
      req.log.info({ audit: 'store-created', store: body.id }, 'store created')
      res.status(201).json(await directory.describe(await directory.byId(body.id)))
    }
  }, {
    method: 'put',
    path: '/stores/:id',
    scope: 'stores',
    operationId: 'changeStore',
    summary: 'Rename a store, set its retention or its upstreams',
    description: '`name` changes what people see (the id, which names it in the API, stays). `retentionDays` keeps its statements that many days after they were stored: older ones are removed in the background, a voided statement with its voiding statements (null: kept for good). ' +
      '`forwardUrls` replaces the upstream LRSs its statements are forwarded to (every worker within LRS_CREDENTIAL_POLL_MS); GET /admin/forwarding/upstreams with a credential of the store shows their queues.',
    params: idParam,
    body: { kind: 'json', name: 'StoreChange', schema: CHANGE_BODY },
    responses: { 200: response('Changed.', { content: json(schema('Store')) }) },
    errors: [errors.NotFound, errors.BadRequest],
    async handler (req, res, { body }) {
      const { id } = req.params
      if (body.forwardUrls !== undefined) {
        checkUpstreams(body.forwardUrls)
        if (!await setForwarding({ storage, upstreams, sealed }, await directory.byId(id), body.forwardUrls)) throw errors.NotFound(`no store "${id}"`)
        req.log.info({ audit: 'store-forwarding', store: id, upstreams: body.forwardUrls.length }, 'store upstreams set')
      }
      if (body.name !== undefined && !await storage.stores.rename({ id, name: body.name })) throw errors.NotFound(`no store "${id}"`)
      if (body.retentionDays !== undefined && !await storage.stores.setRetention({ id, days: body.retentionDays })) throw errors.NotFound(`no store "${id}"`)
      if (body.name !== undefined) req.log.info({ audit: 'store-renamed', store: id }, 'store renamed')
      if (body.retentionDays !== undefined) req.log.info({ audit: 'store-retention', store: id, retentionDays: body.retentionDays }, 'store retention set')
      res.json(await directory.describe(await directory.byId(id)))
    }
  }, {
    method: 'delete',
    path: '/stores/:id',
    scope: 'stores',
    operationId: 'deleteStore',
    summary: 'Delete a store',
    description: 'Cannot be undone: `confirm` must repeat the id (GET /admin/stores/{id} shows what goes). The store, its credentials included, is gone for every request at once ' +
      '(its id may be given to a new store right away); its statements, documents and attachments are then purged in the background, in slices that leave other stores\' requests going, ' +
      'and GET /admin/stores lists it under `deleting` until they are gone. The default store and the calling credential\'s own store cannot be deleted (409).',
    params: idParam,
    query: CONFIRM,
    responses: { 202: response('Deleted; its data is being purged.', { content: json(schema('StoreDeletion')) }) },
    errors: [errors.NotFound, errors.StoreNotDeletable, errors.ConfirmationRequired],
    async handler (req, res, { query }) {
      const store = await directory.byId(req.params.id)
      if (store.number === 0) throw errors.StoreNotDeletable('the default store cannot be deleted')
      if (store.number === (req.credential.store || 0)) throw errors.StoreNotDeletable('this is the calling credential\'s own store: delete it with a credential of another store')
      if (query.confirm !== store.id) throw errors.ConfirmationRequired(`confirm=${store.id} is needed: a deletion cannot be undone`)
      const deleted = await directory.describe(store)
      if (!await storage.stores.remove({ id: store.id })) throw errors.NotFound(`no store "${store.id}"`)
      req.log.info({ audit: 'store-deleted', store: store.id, statements: deleted.statements, documents: deleted.documents, attachments: deleted.attachments, credentials: deleted.credentials }, 'store deleted')
      res.status(202).json({ deleted, purge: 'started' })
    }
  }]
}

module.exports = { storesRoutes }
