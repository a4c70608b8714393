'use strict'

// GET /metrics: Prometheus text format, cluster-wide (cluster-metrics.js),
// for credentials with the `metrics` scope (or `admin`). The forwarding outbox figures are
// read from the store by the answering worker: they are the store's, not a
// worker's.

const client = require('prom-client')
const { response } = require('../http/openapi-parts')
const { parseUpstream } = require('../forwarding/forwarder')

function outboxRegistry (storage, upstreams) {
  const registry = new client.Registry()
  const registers = [registry]
  const queued = new client.Gauge({ name: 'lrs_forward_outbox_entries', help: 'Statements waiting to be forwarded, per upstream.', labelNames: ['upstream'], registers })
  const age = new client.Gauge({ name: 'lrs_forward_outbox_oldest_age_seconds', help: 'Age of the oldest statement waiting to be forwarded, per upstream (0 when none).', labelNames: ['upstream'], registers })
  const dead = new client.Gauge({ name: 'lrs_forward_dead_letters', help: 'Statements an upstream refused for good (see /admin/forwarding/dead-letters), per upstream.', labelNames: ['upstream'], registers })
  return async function collect () {
    const now = Date.now()
    for (const upstream of upstreams) {
      const s = await storage.outbox.stats(upstream)
      queued.set({ upstream }, s.queued)
      age.set({ upstream }, s.oldestEnqueuedAt ? (now - s.oldestEnqueuedAt.getTime()) / 1000 : 0)
      dead.set({ upstream }, s.deadLetters)
    }
    return registry
  }
}

function metricsRoutes ({ config, storage, clusterMetrics }) {
  const upstreams = config.forwardUrls.map((u) => parseUpstream(u).id)
  const outbox = outboxRegistry(storage, upstreams)
  return [{
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    summary: 'Prometheus metrics, cluster-wide',
    description: 'Whichever worker answers, the values are the cluster\'s (process metrics per worker, labelled `worker`); forwarding outbox gauges per upstream.',
    scope: 'metrics',
    responses: { 200: response('Prometheus text exposition format.', { content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } }) },
    async handler (req, res) {
      const text = await clusterMetrics.render(upstreams.length ? [await outbox()] : [])
      res.type(clusterMetrics.contentType).send(text)
    }
  }]
}

module.exports = { metricsRoutes }
