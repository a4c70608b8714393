'use strict'

// GET /openapi.json: a valid OpenAPI 3.1 document, served without
// credentials, describing every route the LRS serves. Checked both ways
// against the Express router (a route the document lacks, or an operation
// no route serves, fails), and against the running LRS: every documented
// operation is answered by something other than the catch-all 404 or a
// 405, and asks for credentials exactly when the document says it does.

const test = require('node:test')
const assert = require('node:assert/strict')
const { startLrs, ADMIN, basic } = require('../helpers/lrs')
const { version } = require('../../package.json')

const OPERATIONS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options']

async function fetchDocument (lrs) {
  const res = await fetch(lrs.url + '/openapi.json')
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type'), /^application\/json/)
  return res.json()
}

// Router 2 keeps a mounted router's path only as `rawPath` (2.3+); a layer
// mounted without a path matches everything (`slash`).
function mountPath (layer) {
  if (layer.slash) return ''
  assert.equal(typeof layer.rawPath, 'string', `cannot read the mount path of router layer "${layer.name}": router internals changed`)
  return layer.rawPath.replace(/\/+$/, '')
}

// Every route of the app: { path (OpenAPI style), methods }. `_all` stands
// for router.all(), the 405 answer for the methods a resource lacks.
function routesOf (app) {
  const routes = []
  const walk = (stack, prefix) => {
    for (const layer of stack) {
      if (layer.route) {
        assert.equal(typeof layer.route.path, 'string', 'routes are declared with string paths')
        const path = (prefix + layer.route.path).replace(/:(\w+)/g, '{$1}')
        routes.push({ path, methods: Object.keys(layer.route.methods) })
      } else if (layer.handle && Array.isArray(layer.handle.stack)) {
        walk(layer.handle.stack, prefix + mountPath(layer))
      }
    }
  }
  walk(app.router.stack, '')
  return routes
}

function operationsOf (doc) {
  const ops = []
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of OPERATIONS) if (item[method]) ops.push({ path, method, op: item[method] })
  }
  return ops
}

// Routes (method and path) the document does not describe.
function undocumented (routes, doc) {
  const out = []
  for (const { path, methods } of routes) {
    const item = doc.paths[path]
    if (!item) out.push(`${methods.join(',')} ${path}`)
    else for (const m of methods) if (m !== '_all' && !item[m]) out.push(`${m} ${path}`)
  }
  return out
}

// Documented operations no route serves. HEAD is served by GET routes;
// OPTIONS by the CORS middleware on /xapi (the probes below check it).
function unserved (routes, doc) {
  const has = (path, method) => routes.some((r) => r.path === path && r.methods.includes(method))
  return operationsOf(doc).filter(({ path, method }) => {
    if (method === 'head') return !has(path, 'get')
    if (method === 'options') return !path.startsWith('/xapi/')
    return !has(path, method)
  }).map(({ path, method }) => `${method} ${path}`)
}

test('GET /openapi.json: a valid OpenAPI 3.1.0 document, no credentials needed', async () => {
  const lrs = await startLrs()
  const doc = await fetchDocument(lrs)
  assert.equal(doc.openapi, '3.1.0')
  assert.equal(doc.info.version, version)
  // ESM only: require() of it needs Node 20.19+, import() any Node 20
  const { Validator } = await import('@seriousme/openapi-schema-validator')
  const result = await new Validator().validate(doc)
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2))
  const ids = operationsOf(doc).map(({ op }) => op.operationId)
  assert.equal(new Set(ids).size, ids.length, 'operationIds are unique')
})

test('the document and the router describe the same routes', async () => {
  const lrs = await startLrs()
  const doc = await fetchDocument(lrs)
  const routes = routesOf(lrs.app)
  // the walk reaches nested routers, mounted with and without a path
  for (const path of ['/openapi.json', '/xapi/statements', '/xapi/activities/state', '/admin/credentials/{key}']) {
    assert.ok(routes.some((r) => r.path === path), `the router walk finds ${path}`)
  }
  assert.deepEqual(undocumented(routes, doc), [])
  assert.deepEqual(unserved(routes, doc), [])

  // and the comparison notices a gap either way
  const { '/admin/agents': erased, ...paths } = doc.paths
  assert.deepEqual(undocumented(routes, { ...doc, paths }), ['delete /admin/agents'])
  const extra = { ...doc.paths, '/xapi/nothing': { get: erased.delete } }
  assert.deepEqual(unserved(routes, { ...doc, paths: extra }), ['get /xapi/nothing'])
})

test('every documented operation is served, with the documented authentication', async () => {
  const lrs = await startLrs()
  const doc = await fetchDocument(lrs)
  const request = (path, method, headers) => fetch(lrs.url + path.replace(/\{\w+\}/g, 'no-such-key'), { method: method.toUpperCase(), headers })
  for (const { path, method, op } of operationsOf(doc)) {
    const name = `${method} ${path}`
    const anonymous = Array.isArray(op.security) && op.security.length === 0
    const bare = await request(path, method, {})
    await bare.arrayBuffer()
    if (anonymous) assert.notEqual(bare.status, 401, `${name} is documented without credentials`)
    else assert.equal(bare.status, 401, `${name} is documented with credentials`)

    // Without the parameters most operations answer 400, which is enough:
    // a route took the request.
    const res = await request(path, method, { Authorization: basic(ADMIN.user, ADMIN.password), 'X-Experience-API-Version': '2.0.0' })
    const text = await res.text()
    assert.notEqual(res.status, 405, `${name}: ${text}`)
    if (res.status === 404) assert.doesNotMatch(text, /no resource at/, `${name} is not routed`)
    if (method === 'head') assert.notEqual(res.status, 404, `${name} is not routed`)
  }
})
