'use strict'

// Forwarding under /admin/forwarding:
//   GET  /admin/forwarding/upstreams             each upstream's queue and dead letters
//   GET  /admin/forwarding/dead-letters          statements an upstream refused for good
//   POST /admin/forwarding/dead-letters/replay   puts them back in the outbox
//   POST /admin/forwarding/dead-letters/discard  drops them (the statements stay stored)
// Forwarding is the whole LRS's (LRS_FORWARD_URLS, every store's
// statements): only the default store's admins and `stores/admin` see it.

const { parameter: p } = require('../validation/query-parameters')
const { json, schema, response } = require('../http/openapi-parts')
const { parseUpstream } = require('../forwarding/forwarder')
const { errors } = require('../errors')
const { allows } = require('../auth/scopes')

const MAX_LIST = 1000

// The three take the same parameters (replay and discard also as a JSON body).
const LIST = {
  upstream: { schema: p.string, description: 'Only this upstream (as named in the metrics and dead letters); all when omitted.' },
  limit: { schema: { type: 'integer', minimum: 1, maximum: MAX_LIST, description: `an integer from 1 to ${MAX_LIST}` }, default: MAX_LIST, description: 'At most this many.' }
}
const listParams = ({ upstream, limit = MAX_LIST }) => ({ upstream: upstream || null, limit })

function forwardingRoutes (deps) {
  return routesOf(deps).map((route) => ({
    ...route,
    errors: [...(route.errors || []), errors.Forbidden],
    handler (req, res, input) {
      if ((req.credential.store || 0) !== 0 && !allows(req.credential.scopes, 'stores')) throw errors.Forbidden('forwarding is the whole LRS\'s: a credential of the default store or with stores/admin manages it')
      return route.handler(req, res, input)
    }
  }))
}

function routesOf ({ config, storage }) {
  // named as in the metrics and dead letters; never with their credentials
  const upstreams = config.forwardUrls.map((u) => parseUpstream(u).id)
  return [{
    method: 'get',
    path: '/forwarding/upstreams',
    operationId: 'listUpstreams',
    summary: 'The upstreams statements are forwarded to, with their queues',
    description: 'One entry per LRS_FORWARD_URLS upstream (none when forwarding is off): the statements waiting in its outbox, ' +
      'when the oldest of them was queued, and its dead letters.',
    responses: { 200: response('The upstreams.', { content: json(schema('UpstreamList')) }) },
    async handler (req, res) {
      const list = await Promise.all(upstreams.map(async (id) => {
        const { queued, oldestEnqueuedAt, deadLetters } = await storage.outbox.stats(id)
        return { id, queued, oldestEnqueuedAt: oldestEnqueuedAt ? oldestEnqueuedAt.toISOString() : null, deadLetters }
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
      const deadLetters = await storage.outbox.listDeadLetters(listParams(query))
      res.json({ deadLetters })
    }
  },
  deadLetterAction({
    action: 'replay',
    operationId: 'replayDeadLetters',
    summary: 'Put dead letters back in the forwarding outbox',
    answer: 'How many were put back.',
    result: ['replayed', 'ReplayResult'],
    apply: (params) => storage.outbox.replayDeadLetters(params)
  }),
  deadLetterAction({
    action: 'discard',
    operationId: 'discardDeadLetters',
    summary: 'Drop dead letters for good',
    description: 'The statements stay stored; only their forwarding to that upstream is given up. ',
    answer: 'How many were dropped.',
    result: ['discarded', 'DiscardResult'],
    apply: (params) => storage.outbox.discardDeadLetters(params)
  })]
}

// replay and discard: the list's parameters (also as a JSON body), a count
// back under `result[0]`, and an audit line (dead-letters-replayed, ...).
function deadLetterAction ({ action, operationId, summary, description = '', answer, result: [field, schemaName], apply }) {
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
      const params = listParams(query)
      const count = await apply(params)
      req.log.info({ audit: `dead-letters-${field}`, upstream: params.upstream, [field]: count }, `dead letters ${field}`)
      res.json({ [field]: count })
    }
  }
}

module.exports = { forwardingRoutes }
