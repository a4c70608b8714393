'use strict'

// GET /metrics: Prometheus text format, cluster-wide (cluster-metrics.js),
// for credentials with the `metrics` scope (or `admin`) of the default
// store, or with `stores/admin`: the figures are the whole LRS's and name
// every store by its id, which a credential of another store (a tenant)
// must not learn. The forwarding outbox figures are
// read from the store by the answering worker: they are the store's, not a
// worker's. One series per upstream: LRS_FORWARD_URLS's (no `store`
// label) and each store's own (at most 5 a store, labelled with its id).

const client = require('prom-client')
const { response } = require('../http/openapi-parts')
const { errors } = require('../errors')
const { allows } = require('../auth/scopes')
const { DEFAULT_STORE } = require('../stores/store-keys')
const { deliveryStatus } = require('../forwarding/delivery-state')

function outboxRegistry (storage, upstreams) {
  const labelNames = ['upstream', 'store', 'forwarder']
  const registry = new client.Registry()
  const registers = [registry]
  const queued = new client.Gauge({ name: 'lrs_forward_outbox_entries', help: 'Statements waiting to be forwarded, per upstream.', labelNames, registers })
  const age = new client.Gauge({ name: 'lrs_forward_outbox_oldest_age_seconds', help: 'Age of the oldest statement waiting to be forwarded, per upstream (0 when none).', labelNames, registers })
  const dead = new client.Gauge({ name: 'lrs_forward_dead_letters', help: 'Statements an upstream refused for good (see /admin/forwarding/dead-letters), per upstream.', labelNames, registers })
  const failing = new client.Gauge({ name: 'lrs_forward_failing', help: 'Whether deliveries to an upstream are failing (1: retrying or failing, 0: healthy), from every worker and host.', labelNames, registers })
  const delivered = new client.Gauge({ name: 'lrs_forward_delivered_statements', help: 'Statements delivered to an upstream since it was made (noted every few seconds), per upstream: rate() gives the delivery rate.', labelNames, registers })
  return async function collect () {
    const now = Date.now()
    for (const gauge of [queued, age, dead, failing, delivered]) gauge.reset() // an upstream removed since goes
    const all = upstreams.all()
    // a forwarder is named by its store, as its name is its store's only
    const storeIds = all.some((u) => u.forwarderId) ? new Map((await storage.stores.all()).map((st) => [st.number, st.id])) : new Map()
    for (const upstream of all) {
      const [s, state] = await Promise.all([storage.outbox.stats(upstream.id), storage.outbox.deliveryState(upstream.id)])
      const labels = upstream.forwarderId
        ? { upstream: upstream.name, store: storeIds.get(upstream.store) || String(upstream.store), forwarder: upstream.forwarderId }
        : upstream.storeId ? { upstream: upstream.name, store: upstream.storeId } : { upstream: upstream.name }
      queued.set(labels, s.queued)
      age.set(labels, s.oldestEnqueuedAt ? (now - s.oldestEnqueuedAt.getTime()) / 1000 : 0)
      dead.set(labels, s.deadLetters)
      failing.set(labels, ['retrying', 'failing'].includes(deliveryStatus(state, { now })) ? 1 : 0)
      delivered.set(labels, state ? state.delivered : 0)
    }
    return registry
  }
}

function metricsRoutes ({ storage, clusterMetrics, upstreams }) {
  const outbox = outboxRegistry(storage, upstreams)
  return [{
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    summary: 'Prometheus metrics, cluster-wide',
    description: 'Whichever worker answers, the values are the cluster\'s (process metrics per worker, labelled `worker`); forwarding outbox gauges per upstream. ' +
      'They cover every store: a credential of a store other than the default one needs `stores/admin`.',
    scope: 'metrics',
    responses: { 200: response('Prometheus text exposition format.', { content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } }) },
    async handler (req, res) {
      if (req.credential.store !== DEFAULT_STORE && !allows(req.credential.scopes, 'stores')) {
        throw errors.Forbidden('GET /metrics covers every store: it needs a credential of the default store, or stores/admin')
      }
      const text = await clusterMetrics.render(upstreams.all().length ? [await outbox()] : [])
      res.type(clusterMetrics.contentType).send(text)
    }
  }]
}

module.exports = { metricsRoutes }
