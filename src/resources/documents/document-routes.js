'use strict'

// One engine for the three document resources (Communication 2.2): State,
// Activity Profile and Agent Profile differ only in their key parameters
// (see the thin files in state/, activity-profile/, agent-profile/).
//
// Concurrency (Communication 3.1, 2.0 §4.1.4): strong ETags (SHA-1 hex of
// the content, valid for both versions); If-Match / If-None-Match on PUT,
// POST and DELETE; every write is conditional in the database (on the
// stored etag, or insert-if-absent), so concurrent writers get 204 or 412
// and never silently overwrite each other.

const { errors } = require('../../errors')
const { httpDate, lastModified } = require('../../http/http-date')
const { conditionsOf, matches } = require('../../http/conditional')
const { parseMediaType } = require('../../http/media-type')
const { ref, json, header, response } = require('../../http/openapi-parts')
const { documentQueries, documentKeys, sha1 } = require('./document-keys')
const { scanJson } = require('../../validation/json-scan')
const { isJsonObject } = require('../../lib/json-object')

// Concurrent merges into one document succeed one per round (compare and
// swap on the etag): with a short random pause between rounds, a few dozen
// concurrent writers all get through before the last gives up with 412.
const MAX_MERGE_ATTEMPTS = 50
const MERGE_BACKOFF_MS = 5
const TAG = 'xAPI Documents'
const IF_MATCH = header('If-Match', { type: 'string' }, 'ETag(s) the stored document must have, or `*` (it must exist).')
const IF_NONE_MATCH = header('If-None-Match', { type: 'string' }, '`*`: only if no document exists.')
const STORED = { 204: response('Stored; ETag is the new version\'s.', { headers: { ETag: ref('headers', 'ETag') } }) }

function newValue (content, contentType) {
  return { content, contentType, etag: sha1(content), updated: new Date() }
}

// spec: { resource, path, scope, docParam, activityId, agent, registration,
// deleteMany, name (of the operations), title (in their summaries) }
function documentRoutes (spec, { config, documents, validator }) {
  const queries = documentQueries(spec)
  const keysOf = documentKeys(spec, validator)
  const read = `${spec.scope}:read`
  const write = `${spec.scope}:write`
  const route = (method, fields) => ({ method, path: spec.path, tag: TAG, ...fields })

  const get = route('get', {
    operationId: `get${spec.name}`,
    summary: `Get a ${spec.title} document, or the ids of them`,
    description: `With \`${spec.docParam}\`: the document as stored, with its ETag (SHA-1 of the content). Without: a JSON array of the ids, optionally only those updated after \`since\`.`,
    scope: read,
    query: queries.get,
    parameters: [header('If-None-Match', { type: 'string' }, 'ETag(s) the client holds: 304 without a body when the stored document has one of them.')],
    responses: {
      200: response('The document, or the list of ids.', {
        content: { '*/*': { schema: {} }, 'application/json': { schema: { type: 'array', items: { type: 'string' } } } },
        headers: { ETag: ref('headers', 'ETag'), 'Last-Modified': ref('headers', 'LastModified') }
      }),
      304: response('The document has not changed from the ETag named in If-None-Match.', { headers: { ETag: ref('headers', 'ETag') } })
    },
    errors: [errors.NotFound],
    async handler (req, res, { query }) {
      // since filters the list of ids: not with a document id.
      if (query[spec.docParam] !== undefined && query.since !== undefined) throw errors.InvalidParameter('unknown parameter "since"')
      const p = keysOf(query, req)
      if (!p.key) {
        const rows = await documents.list({ resource: spec.resource, scope: p.scope, registration: p.registration, since: p.since })
        if (rows.length) res.setHeader('Last-Modified', lastModified(rows.map((r) => r.updated)))
        return res.type('application/json; charset=utf-8').end(JSON.stringify(rows.map((r) => r.docId)))
      }
      const doc = await documents.get(p.key)
      if (!doc) throw errors.NotFound(`no document with ${spec.docParam} "${p.docId}"`)
      res.setHeader('ETag', `"${doc.etag}"`)
      res.setHeader('Last-Modified', httpDate(doc.updated))
      // RFC 7232 4.1: a client holding this version gets no body again.
      const { ifNoneMatch } = conditionsOf(req)
      if (ifNoneMatch && matches(ifNoneMatch, doc.etag)) return res.status(304).end()
      res.setHeader('Content-Type', doc.contentType)
      res.end(doc.content)
    }
  })

  const put = route('put', {
    operationId: `put${spec.name}`,
    summary: `Store a ${spec.title} document`,
    description: 'Any content type, kept as sent. Without If-Match/If-None-Match: 2.0 creates the document or answers 409 if it exists; ' +
      `1.0.3 ${spec.resource === 'state' ? 'overwrites it' : 'answers 409 if it exists, 400 otherwise'}.`,
    scope: write,
    query: queries.write,
    parameters: [IF_MATCH, IF_NONE_MATCH],
    body: { kind: 'raw', required: true, content: { '*/*': { schema: {} } } },
    responses: STORED,
    errors: [errors.BadRequest, errors.DocumentConflict, errors.PreconditionFailed],
    async handler (req, res, { query }) {
      const p = keysOf(query, req)
      const value = newValue(withinSize(req.rawBody), req.headers['content-type'] || 'application/octet-stream')
      const { ifMatch, ifNoneMatch } = conditionsOf(req)
      if (ifMatch) {
        if (!(await replaceIfMatch(p.key, value, ifMatch))) throw errors.PreconditionFailed('If-Match does not match the stored document')
      } else if (ifNoneMatch) {
        if (!(await writeIfNoneMatch(p.key, value, ifNoneMatch))) throw errors.PreconditionFailed('If-None-Match: the document exists')
      } else {
        await putWithoutPrecondition(p.key, value, req.xapiVersion)
      }
      written(res, value)
    }
  })

  // Communication 3.1.s3: a PUT without If-Match/If-None-Match.
  async function putWithoutPrecondition (key, value, xapiVersion) {
    if (spec.resource === 'state' && xapiVersion === '1.0.3') {
      // 1.0.3 exempts the State resource from concurrency control: overwrite.
      await documents.replace(key, value, { upsert: true })
      return
    }
    if (spec.resource !== 'state' && xapiVersion === '1.0.3') {
      // The 1.0.3 conformance suite rejects a header-less PUT on a new profile
      // document with 400 (v1_0_3/H.Communication2.6-AgentProfileResource.js,
      // XAPI-00273 "PUT request without an ETag header returns an error"), and
      // on an existing one 409 (Communication 3.1.s3.b4). Nothing is written.
      if (await documents.get(key)) throw errors.DocumentConflict()
      throw errors.BadRequest('PUT requires If-Match (the ETag of the document) or If-None-Match: *')
    }
    // 2.0: create if absent, 409 if it exists. For State this follows the 2.0
    // conformance suite (v2_0/4.1.4-Concurrency.js, XAPI-00322, "should
    // respond with 409 ... when PUT without If-Match or If-None-Match on an
    // existing document"), which applies the rule to State too, although the
    // 1.0.3 text exempted State (disputed: lrs-conformance-test-suite #282).
    if (!(await documents.insert(key, value))) throw errors.DocumentConflict()
  }

  async function replaceIfMatch (key, value, ifMatch) {
    if (ifMatch.any) return documents.replace(key, value, { upsert: false })
    for (const tag of ifMatch.tags) if (await documents.replace(key, value, { etag: tag })) return true
    return false
  }

  async function writeIfNoneMatch (key, value, ifNoneMatch) {
    if (ifNoneMatch.any) return documents.insert(key, value)
    const current = await documents.get(key)
    if (!current) return documents.insert(key, value)
    if (matches(ifNoneMatch, current.etag)) return false
    return documents.replace(key, value, { etag: current.etag })
  }

  // Communication 2.2.s7: POST merges the top-level keys of two JSON
  // objects; anything else is 400. Compare-and-swap on the etag that was
  // read, retried if another writer got in between.
  const post = route('post', {
    operationId: `post${spec.name}`,
    summary: `Merge JSON into a ${spec.title} document`,
    description: 'The top-level properties of the posted JSON object replace the stored object\'s (which must be JSON); absent, it is created.',
    scope: write,
    query: queries.write,
    parameters: [IF_MATCH, IF_NONE_MATCH],
    body: { kind: 'raw', required: true, content: json({ type: 'object' }) },
    responses: STORED,
    errors: [errors.BadRequest, errors.PreconditionFailed],
    async handler (req, res, { query }) {
      const p = keysOf(query, req)
      const posted = mergeableObject(req.headers['content-type'], req.rawBody, config)
      if (posted === NOT_JSON) throw errors.BadRequest('POST merges JSON: send Content-Type application/json (use PUT for other content)')
      if (posted === NOT_AN_OBJECT) throw errors.BadRequest('POST body must be a JSON object to merge')
      const { ifMatch, ifNoneMatch } = conditionsOf(req)
      for (let attempt = 0; attempt < MAX_MERGE_ATTEMPTS; attempt++) {
        const current = await documents.get(p.key)
        const etag = current ? current.etag : null
        if (ifMatch && !matches(ifMatch, etag)) throw errors.PreconditionFailed('If-Match does not match the stored document')
        if (ifNoneMatch && current && matches(ifNoneMatch, etag)) throw errors.PreconditionFailed('If-None-Match: the document exists')
        if (!current) {
          const value = newValue(Buffer.from(JSON.stringify(posted)), 'application/json')
          if (await documents.insert(p.key, value)) return written(res, value)
          continue
        }
        const stored = mergeableObject(current.contentType, current.content, config) // it may have come by PUT
        if (stored === NOT_JSON) throw errors.BadRequest('the stored document is not JSON, so it cannot be merged: use PUT')
        if (stored === NOT_AN_OBJECT) throw errors.BadRequest('the stored document is not a JSON object, so it cannot be merged: use PUT')
        const merged = withinSize(Buffer.from(JSON.stringify({ ...stored, ...posted })))
        const value = newValue(merged, 'application/json')
        if (await documents.replace(p.key, value, { etag })) return written(res, value)
        if (ifMatch) throw errors.PreconditionFailed('the document changed while merging')
        await new Promise((resolve) => setTimeout(resolve, Math.random() * MERGE_BACKOFF_MS))
      }
      throw errors.PreconditionFailed('the document kept changing while merging; retry')
    }
  })

  const remove = route('delete', {
    operationId: `delete${spec.name}`,
    summary: `Delete a ${spec.title} document${spec.deleteMany ? ', or all of them' : ''}`,
    description: spec.deleteMany ? `Without \`${spec.docParam}\`: every document of the activity, agent and registration.` : '',
    scope: write,
    query: queries.delete,
    parameters: [IF_MATCH],
    responses: { 204: response('Done.') },
    errors: [errors.PreconditionFailed],
    async handler (req, res, { query }) {
      const p = keysOf(query, req)
      const { ifMatch } = conditionsOf(req)
      if (!p.key) {
        await documents.deleteMany({ resource: spec.resource, scope: p.scope, registration: p.registration })
        return res.status(204).end()
      }
      if (ifMatch) {
        const deleted = ifMatch.any ? await documents.delete(p.key) : await deleteIfMatch(p.key, ifMatch)
        if (!deleted) throw errors.PreconditionFailed('If-Match does not match the stored document')
      } else {
        await documents.delete(p.key)
      }
      res.status(204).end()
    }
  })

  // 204 with the new version's ETag, so a client can make its next change
  // with If-Match without reading the document back.
  function written (res, value) {
    res.setHeader('ETag', `"${value.etag}"`)
    res.status(204).end()
  }

  async function deleteIfMatch (key, ifMatch) {
    for (const tag of ifMatch.tags) if (await documents.delete(key, { etag: tag })) return true
    return false
  }

  function withinSize (content) {
    if (content.length > config.maxDocumentBytes) throw errors.PayloadTooLarge(`a document may hold at most ${config.maxDocumentBytes} bytes (LRS_MAX_DOCUMENT_BYTES)`)
    return content
  }

  return [get, put, post, remove]
}

const NOT_JSON = Symbol('not JSON')
const NOT_AN_OBJECT = Symbol('not a JSON object')

// A POST merges a JSON object into a JSON object (Communication 2.2.s7,
// 2.2.s8.b1): the posted body and the stored document are both checked
// this way, the JSON limits included. Returns the object, NOT_JSON
// (another media type) or NOT_AN_OBJECT.
function mergeableObject (contentType, content, config) {
  if (parseMediaType(contentType).type !== 'application/json') return NOT_JSON
  const text = content.toString('utf8')
  let value
  try { value = JSON.parse(text) } catch { return NOT_AN_OBJECT }
  if (!isJsonObject(value)) return NOT_AN_OBJECT
  scanJson(text, { maxDepth: config.maxJsonDepth, maxStringLength: config.maxDocumentBytes })
  return value
}

module.exports = { documentRoutes }
