'use strict'

// GET /metrics: Prometheus text format, cluster-wide (cluster-metrics.js),
// for credentials with the `admin` scope. The forwarding outbox figures are
// read from the store by the answering worker: they are the store's, not a
// worker's.

const express = require('express')
const client = require('prom-client')
const { requireScope } = require('../auth/basic-auth')
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

function metricsRoutes ({ config, credentials, storage, clusterMetrics }) {
  const router = express.Router({ caseSensitive: true })
  const upstreams = config.forwardUrls.map((u) => parseUpstream(u).id)
  const outbox = outboxRegistry(storage, upstreams)
  router.get('/metrics', requireScope(credentials, 'admin'), async (req, res) => {
    const text = await clusterMetrics.render(upstreams.length ? [await outbox()] : [])
    res.type(clusterMetrics.contentType).send(text)
  })
  return router
}

module.exports = { metricsRoutes }
