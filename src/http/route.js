'use strict'

// One declaration per route (STYLE.md): each route is written once, as an
// object, and that object is what the router serves, what requireScope
// checks, what ajv validates and what /openapi.json describes
// (openapi-document.js reads the table built here), so the description
// cannot say something the router does not do.
//
// A declaration:
//   method       'get' | 'put' | 'post' | 'delete' (GET serves HEAD too)
//   path         relative to where its router is mounted; Express syntax (:key)
//   operationId, summary, description, tag (or the group's)
//   scope        the kind of request requireScope checks ('statements:read',
//                'admin', ... see auth/scopes.js), or null: no credentials
//   query        { name: { schema, required, description, default, examples } }:
//                the properties of the ajv schema the query is checked with
//                (compiled once, here; unknown names are 400), and the
//                documented query parameters. Absent: the query is not read.
//   params       { name: { schema, description } }: path parameters
//   parameters   other OpenAPI parameters, documentation only: the request
//                headers the handler reads (and POST /xapi/statements' `method`,
//                which http/alternate-syntax.js reads before any route)
//   body         { kind: 'json', schema, name }: checked with ajv (json-body.js)
//                { kind: 'form', schema, name }: the same, of an
//                  application/x-www-form-urlencoded body (its router parses it)
//                { kind: 'raw', required, description, content }: the bytes
//                  read by http/raw-body.js, parsed by the handler
//                { kind: 'parameters' }: a JSON object whose fields are more
//                  query parameters, checked with the query schema
//   responses    { status: OpenAPI response }: the answers other than errors
//   errors       catalogue entries (errors.js) the handler throws; those that
//                follow from the declaration (scope: 401 and 403; query: 400;
//                body: 400, 413) and from the group are added for the document
//   handler      (req, res, { query, body }) with both checked
//
// A group (router(prefix, routes, group)) is the routes one router serves
// under one mount path: tag, scope (checked once, for everything the router
// sees, as /admin does), the errors and `parameters` (OpenAPI, documentation
// only) its routes share, `cors`
// (CORS preflight answered on its paths), `head` (HEAD documented wherever
// GET is) and `methodNotAllowed` (other methods on its paths are 405).

const express = require('express')
const { errors } = require('../errors')
const { requireScope } = require('../auth/authenticate')
const { scopesAllowing } = require('../auth/scopes')
const { checkBody } = require('../validation/json-body')
const { isJsonObject } = require('../lib/json-object')

const METHODS = new Set(['get', 'put', 'post', 'delete'])
const BODY_KINDS = new Set(['json', 'form', 'raw', 'parameters'])

// The ajv schema of a declared query (validation/query-parameters.js).
function querySchema (query) {
  const properties = {}
  const required = []
  for (const [name, p] of Object.entries(query)) {
    properties[name] = p.schema
    if (p.required) required.push(name)
  }
  return { properties, required }
}

// Mistakes in a declaration stop the start, naming the route.
function checked (route, group) {
  const name = `${String(route.method).toUpperCase()} ${route.path}`
  const fail = (what) => { throw new Error(`route ${name}: ${what}`) }
  if (!METHODS.has(route.method)) fail('method must be one of ' + [...METHODS].join(', '))
  if (typeof route.path !== 'string' || !route.path.startsWith('/')) fail('path must be a string starting with /')
  if (typeof route.handler !== 'function') fail('handler is missing')
  if (!route.operationId || !route.summary) fail('operationId and summary are required')
  const scope = route.scope !== undefined ? route.scope : group.scope
  if (scope === undefined) fail('declare its scope (null for a route without credentials)')
  if (group.scope && scope !== group.scope) fail(`its group requires scope "${group.scope}"`)
  if (scope !== null) scopesAllowing(scope) // throws for an unknown kind of request
  if (route.body && !BODY_KINDS.has(route.body.kind)) fail('body.kind must be one of ' + [...BODY_KINDS].join(', '))
  if (route.body && route.body.kind === 'parameters' && !route.query) fail('a body of parameters needs a query declaration')
  for (const e of route.errors || []) if (typeof e !== 'function' || !e.code) fail('errors must be entries of the catalogue (errors.js)')
  const params = (route.path.match(/:\w+/g) || []).map((p) => p.slice(1))
  if (params.join() !== Object.keys(route.params || {}).join()) fail('declare each path parameter in params, in order')
  return { ...route, scope, tag: route.tag || group.tag }
}

// `validator`: the query checks compile with its ajv (xAPI formats, coercion).
// `storeNamed`: a store by id (authenticate.js, X-LRS-Store).
function createRouteTable ({ authenticator, validator, storeNamed }) {
  const declared = []

  // A router serving `routes`, to be mounted at `prefix`; each route is
  // recorded with its full path.
  function router (prefix, routes, group = {}) {
    const r = express.Router({ caseSensitive: true })
    if (group.scope) r.use(requireScope(authenticator, group.scope, { storeNamed }))
    for (const declaration of routes) {
      const route = checked(declaration, group)
      const stack = []
      if (route.scope && !group.scope) stack.push(requireScope(authenticator, route.scope, { storeNamed }))
      stack.push(handlerOf(route))
      r[route.method](route.path, ...stack)
      declared.push(Object.freeze({ ...route, path: prefix + route.path, group }))
    }
    if (group.methodNotAllowed) {
      for (const path of new Set(routes.map((route) => route.path))) {
        r.all(path, (req, res, next) => next(errors.MethodNotAllowed(`${req.method} is not supported on ${path}`)))
      }
    }
    return r
  }

  function handlerOf (route) {
    const query = route.query ? validator.queryParameters(querySchema(route.query)) : null
    const kind = route.body && route.body.kind
    const body = kind === 'json' || kind === 'form' ? checkBody(route.body.schema) : null
    const { handler } = route
    return function handle (req, res) {
      const input = {}
      if (kind === 'parameters') input.query = query({ ...req.query, ...(isJsonObject(req.body) ? req.body : {}) })
      else if (query) input.query = query(req.query)
      if (body) input.body = body(req.body)
      return handler(req, res, input)
    }
  }

  return { router, routes: () => declared }
}

module.exports = { createRouteTable, querySchema }
