'use strict'

// GET /openapi.json: a valid OpenAPI 3.1 document, served without
// credentials, describing every route the LRS serves. Checked both ways
// against the Express router (a route the document lacks, or an operation
// no route serves, fails), and against the running LRS: every documented
// operation is answered by something other than the catch-all 404 or a
// 405, asks for credentials exactly when the document says it does, lets
// through exactly the credential scopes it lists, and takes exactly the
// query parameters it lists (those of the route's declaration, which ajv
// checks: src/http/route.js).

const test = require('node:test')
const assert = require('node:assert/strict')
const { startLrs, ADMIN, basic } = require('../helpers/lrs')
const { KNOWN_SCOPES } = require('../../src/auth/scopes')
const { querySchema, createRouteTable } = require('../../src/http/route')
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
// OPTIONS by the CORS middleware on /xapi and /feed (the probes below check it).
function unserved (routes, doc) {
  const has = (path, method) => routes.some((r) => r.path === path && r.methods.includes(method))
  return operationsOf(doc).filter(({ path, method }) => {
    if (method === 'head') return !has(path, 'get')
    if (method === 'options') return !path.startsWith('/xapi/') && !path.startsWith('/feed/')
    return !has(path, method)
  }).map(({ path, method }) => `${method} ${path}`)
}

// A response's text; an event stream (the live feed, which never ends) is
// let go once it has begun.
async function textOf (res) {
  if (!(res.headers.get('content-type') || '').startsWith('text/event-stream')) return res.text()
  await res.body.cancel()
  return ''
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
  assert.deepEqual(undocumented(routes, { ...doc, paths }), ['get /admin/agents', 'delete /admin/agents'])
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
    const text = await textOf(res)
    assert.notEqual(res.status, 405, `${name}: ${text}`)
    if (res.status === 404) assert.doesNotMatch(text, /no resource at/, `${name} is not routed`)
    if (method === 'head') assert.notEqual(res.status, 404, `${name} is not routed`)
  }
})

// Every operation but the CORS preflight, with each scope a credential may
// have: 403 (LRS_ERR_AUTH_SCOPE) exactly for the scopes the document does
// not list. What requireScope enforces is what the document says.
test('each operation lets through exactly the credential scopes it documents', async () => {
  const lrs = await startLrs()
  const doc = await fetchDocument(lrs)
  const auth = {}
  for (const scope of KNOWN_SCOPES) {
    const made = await lrs.http('/admin/credentials', { method: 'POST', body: { scopes: [scope] } })
    assert.equal(made.status, 201)
    auth[scope] = basic(made.json.key, made.json.secret)
  }
  for (const { path, method, op } of operationsOf(doc)) {
    if (method === 'options') continue
    const name = `${method} ${path}`
    const anonymous = Array.isArray(op.security) && op.security.length === 0
    if (anonymous) {
      assert.equal(op['x-credential-scopes'], undefined, `${name}: anonymous, so no scopes`)
      continue
    }
    const documented = op['x-credential-scopes']
    assert.ok(Array.isArray(documented) && documented.length, `${name} lists the scopes that allow it`)
    for (const scope of documented) assert.match(op.description, new RegExp('`' + scope + '`'), `${name}: the prose names ${scope}`)
    const allowed = []
    for (const scope of KNOWN_SCOPES) {
      const res = await fetch(lrs.url + path.replace(/\{\w+\}/g, 'no-such-key'), {
        method: method.toUpperCase(),
        headers: { Authorization: auth[scope], 'X-Experience-API-Version': '2.0.0' }
      })
      const text = await textOf(res)
      assert.notEqual(res.status, 401, `${name} with a credential of scope ${scope}`)
      if (res.status !== 403) allowed.push(scope)
      else if (method !== 'head') assert.equal(JSON.parse(text).code, 'LRS_ERR_AUTH_SCOPE')
    }
    assert.deepEqual(allowed.sort(), [...documented].sort(), `${name}: the scopes let through are the documented ones`)
  }
})

// A value each required parameter accepts, so a request reaches the check
// of the others.
const GOOD = {
  activityId: 'http://example.com/activity',
  agent: '{"mbox":"mailto:learner@example.com"}',
  statementId: '9e13cefd-53d3-4eac-b5ed-2cf6693903bb',
  stateId: 's',
  profileId: 'p'
}

test('each operation documents exactly the query parameters its route declares, and the route takes those and no other', async () => {
  const lrs = await startLrs()
  const doc = await fetchDocument(lrs)
  const routes = lrs.app.locals.routeTable.routes()
  assert.ok(routes.length >= 20, 'the route table is exposed')
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}')
    const name = `${route.method} ${path}`
    const op = doc.paths[path] && doc.paths[path][route.method]
    assert.ok(op, `${name} is in the document`)
    assert.equal(op.operationId, route.operationId)
    const documented = (op.parameters || []).filter((q) => q.in === 'query')
    // Parameters the declaration documents without its query schema: the
    // alternate syntax's `method`, read before any route.
    const extra = (route.parameters || []).filter((q) => q.in === 'query').map((q) => q.name)
    const { properties, required } = querySchema(route.query || {})
    assert.deepEqual(documented.map((q) => q.name).sort(), [...Object.keys(properties), ...extra].sort(), `${name}: query parameters`)
    for (const q of documented) {
      if (extra.includes(q.name)) continue
      assert.equal(q.required, required.includes(q.name), `${name}: ${q.name} required`)
      const { default: _, examples: __, ...shown } = q.schema
      const { examples: ___, ...enforced } = properties[q.name]
      assert.deepEqual(shown, enforced, `${name}: ${q.name} is documented with the schema ajv checks`)
    }
    if (!route.query) continue

    // The running route: an undeclared name is 400, each declared one is a
    // name it knows (a bad value may be 400, but not as an unknown name).
    const send = async (params) => {
      const query = new URLSearchParams(params).toString()
      const res = await fetch(`${lrs.url}${path.replace(/\{\w+\}/g, 'no-such-key')}?${query}`, {
        method: route.method.toUpperCase(),
        headers: { Authorization: basic(ADMIN.user, ADMIN.password), 'X-Experience-API-Version': '2.0.0' }
      })
      const text = await res.text()
      return { status: res.status, message: res.status >= 400 && text ? JSON.parse(text).message : '' }
    }
    const base = Object.fromEntries(required.map((n) => [n, GOOD[n]]))
    const unknown = await send({ ...base, not_a_parameter: '1' })
    assert.equal(unknown.status, 400, `${name} refuses an undeclared parameter`)
    assert.equal(unknown.message, 'unknown parameter "not_a_parameter"')
    for (const q of Object.keys(properties)) {
      if (required.includes(q)) continue
      const res = await send({ ...base, [q]: 'x' })
      assert.doesNotMatch(res.message, /unknown parameter/, `${name} takes ${q}`)
    }
  }
})

test('a route declared without its scope, with an unknown one, or against its group\'s, stops the start', () => {
  const table = createRouteTable({ authenticator: {}, validator: { queryParameters: () => () => ({}) } })
  const route = { method: 'get', path: '/x', operationId: 'getX', summary: 'X', handler () {} }
  assert.throws(() => table.router('', [route]), /GET \/x: declare its scope/)
  assert.throws(() => table.router('', [{ ...route, scope: 'everything' }]), /unknown kind of request "everything"/)
  assert.throws(() => table.router('/admin', [{ ...route, scope: 'statements:read' }], { scope: 'admin' }), /its group requires scope "admin"/)
  assert.throws(() => table.router('', [{ ...route, path: '/x/:id', scope: null }]), /declare each path parameter/)
  assert.deepEqual(table.routes(), [])
})
