'use strict'

// Forwarding under /admin/forwarding:
//   GET  /admin/forwarding/upstreams             each upstream's queue and dead letters
//   GET  /admin/forwarding/dead-letters          statements an upstream refused for good
//   POST /admin/forwarding/dead-letters/replay   puts them back in the outbox
//   POST /admin/forwarding/dead-letters/discard  drops them (the statements stay stored)
// A credential sees its store's own upstreams (PUT /admin/stores/{id},
// `forwardUrls`) and, when it belongs to the default store or has
// `stores/admin`, the LRS-wide ones (LRS_FORWARD_URLS, every store's
// statements). Each is named by its endpoint without scheme or credentials.

const { parameter: p } = require('../validation/query-parameters')
const { json, schema, response } = require('../http/openapi-parts')
const { unqualify } = require('../stores/store-keys')
const { allows } = require('../auth/scopes')

const MAX_LIST = 1000

// The three take the same parameters (replay and discard also as a JSON body).
const LIST = {
  upstream: { schema: p.string, description: 'Only this upstream (as named in the upstream list and dead letters); all it sees when omitted.' },
  limit: { schema: { type: 'integer', minimum: 1, maximum: MAX_LIST, description: `an integer from 1 to ${MAX_LIST}` }, default: MAX_LIST, description: 'At most this many.' }
}

function forwardingRoutes ({ storage, upstreams }) {
  // The upstreams the calling credential sees, each { id (storage's), name, forwards }.
  function visible (req) {
    const store = req.credential.store || 0
    const own = upstreams.ofStore(store).map((u) => ({ id: u.id, name: u.name, forwards: 'this store' }))
    const lrsWide = store === 0 || allows(req.credential.scopes, 'stores') ? upstreams.lrsWide().map((u) => ({ id: u.id, name: u.name, forwards: 'every store' })) : []
    return [...lrsWide, ...own]
  }
  // The query's upstreams, as storage names them.
  function chosen (req, { upstream, limit = MAX_LIST }) {
    const list = visible(req).filter((u) => !upstream || u.name === upstream)
    return { upstreams: list.map((u) => u.id), limit, byId: new Map(list.map((u) => [u.id, u])) }
  }

  return [{
    method: 'get',
    path: '/forwarding/upstreams',
    operationId: 'listUpstreams',
    summary: 'The upstreams statements are forwarded to, with their queues',
    description: 'The calling credential\'s store\'s own upstreams (PUT /admin/stores/{id}, `forwardUrls`) and, for a credential of the default store or with stores/admin, ' +
      'those of LRS_FORWARD_URLS, which get every store\'s statements: the statements waiting in each one\'s outbox, when the oldest of them was queued, and its dead letters.',
    responses: { 200: response('The upstreams.', { content: json(schema('UpstreamList')) }) },
    async handler (req, res) {
      const list = await Promise.all(visible(req).map(async ({ id, name, forwards }) => {
        const { queued, oldestEnqueuedAt, deadLetters } = await storage.outbox.stats(id)
        return { id: name, forwards, queued, oldestEnqueuedAt: oldestEnqueuedAt ? oldestEnqueuedAt.toISOString() : null, deadLetters }
      }))
      res.json({ upstreams: list })
    }
  }, {
    method: 'get',
    path: '/forwarding/dead-letters',
    operationId: 'listDeadLetters',
    summary: 'Statements an upstream refused for good',
    query: LIST,
    responses: { 200: response('The dead letters.', { content: json(schema('DeadLetterList')) }) },
    async handler (req, res, { query }) {
      const params = chosen(req, query)
      const deadLetters = params.upstreams.length ? await storage.outbox.listDeadLetters(params) : []
      res.json({
        deadLetters: deadLetters.map((d) => {
          const upstream = params.byId.get(d.upstream)
          // a store's own upstream forwards only its statements: their ids as the store knows them
          const statementId = upstream.forwards === 'this store' ? unqualify(d.statementId) : d.statementId
          return { ...d, id: `${upstream.name} ${statementId}`, upstream: upstream.name, forwards: upstream.forwards, statementId }
        })
      })
    }
  },
  deadLetterAction({
    chosen,
    action: 'replay',
    operationId: 'replayDeadLetters',
    summary: 'Put dead letters back in the forwarding outbox',
    answer: 'How many were put back.',
    result: ['replayed', 'ReplayResult'],
    apply: (params) => params.upstreams.length ? storage.outbox.replayDeadLetters(params) : 0
  }),
  deadLetterAction({
    chosen,
    action: 'discard',
    operationId: 'discardDeadLetters',
    summary: 'Drop dead letters for good',
    description: 'The statements stay stored; only their forwarding to that upstream is given up. ',
    answer: 'How many were dropped.',
    result: ['discarded', 'DiscardResult'],
    apply: (params) => params.upstreams.length ? storage.outbox.discardDeadLetters(params) : 0
  })]
}

// replay and discard: the list's parameters (also as a JSON body), a count
// back under `result[0]`, and an audit line (dead-letters-replayed, ...).
function deadLetterAction ({ chosen, action, operationId, summary, description = '', answer, result: [field, schemaName], apply }) {
  return {
    method: 'post',
    path: `/forwarding/dead-letters/${action}`,
    operationId,
    summary,
    description: description + '`upstream` and `limit` may also be sent as a JSON body.',
    query: LIST,
    body: { kind: 'parameters', description: 'The query parameters, as a JSON object (its fields win).' },
    responses: { 200: response(answer, { content: json(schema(schemaName)) }) },
    async handler (req, res, { query }) {
      const params = chosen(req, query)
      const count = await apply(params)
      req.log.info({ audit: `dead-letters-${field}`, upstream: query.upstream || null, [field]: count }, `dead letters ${field}`)
      res.json({ [field]: count })
    }
  }
}

module.exports = { forwardingRoutes }
