'use strict'

// Stores under /admin/stores, for credentials with `stores/admin`:
//   GET  /admin/stores    list, with the statements each holds
//   POST /admin/stores    create
//   PUT  /admin/stores/:id   rename (its id stays)
// A store's data is kept apart from every other's (src/stores/store-keys.js);
// a credential belongs to one (POST /admin/credentials, `store`).

const { errors } = require('../errors')
const { json, schema, response } = require('../http/openapi-parts')
const { storeDirectory, STORE_ID } = require('../stores/store-directory')

const CREATE_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: {
    id: { type: 'string', pattern: STORE_ID, description: 'How the API names the store, for good: lower-case letters, digits and dashes.' },
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'What people see; the id when omitted.' }
  }
}

const RENAME_BODY = { type: 'object', additionalProperties: false, required: ['name'], properties: { name: CREATE_BODY.properties.name } }
const idParam = { id: { schema: { type: 'string' }, description: 'The store\'s id.' } }

function storesRoutes ({ storage }) {
  const directory = storeDirectory(storage)
  return [{
    method: 'get',
    path: '/stores',
    scope: 'stores',
    operationId: 'listStores',
    summary: 'List stores',
    responses: { 200: response('The stores.', { content: json(schema('StoreList')) }) },
    async handler (req, res) {
      res.json({ stores: await Promise.all((await directory.all()).map(directory.describe)) })
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
    errors: [errors.StoreExists, errors.StoreLimit],
    async handler (req, res, { body }) {
      const name = body.name || body.id
      const made = await storage.stores.create({ id: body.id, name })
      if (made === 'taken') throw errors.StoreExists()
      if (made === 'full') throw errors.StoreLimit('this LRS holds as many stores as its engine can (SQLite: 2,047, the default one included)')
      req.log.info({ audit: 'store-created', store: body.id }, 'store created')
      res.status(201).json(await directory.describe(await directory.byId(body.id)))
    }
  }, {
    method: 'put',
    path: '/stores/:id',
    scope: 'stores',
    operationId: 'renameStore',
    summary: 'Rename a store',
    description: 'Changes what people see; the id, which names it in the API, stays.',
    params: idParam,
    body: { kind: 'json', name: 'StoreRename', schema: RENAME_BODY },
    responses: { 200: response('Renamed.', { content: json(schema('Store')) }) },
    errors: [errors.NotFound],
    async handler (req, res, { body }) {
      const { id } = req.params
      if (!await storage.stores.rename({ id, name: body.name })) throw errors.NotFound(`no store "${id}"`)
      req.log.info({ audit: 'store-renamed', store: id }, 'store renamed')
      res.json(await directory.describe(await directory.byId(id)))
    }
  }]
}

module.exports = { storesRoutes }
