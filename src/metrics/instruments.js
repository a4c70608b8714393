'use strict'

// The LRS's own metrics, one prom-client registry per worker. Counters and
// histograms are summed over the workers (cluster-metrics.js); gauges of
// work in flight too. Label values come from small fixed sets (routes of
// the API, statuses, query shapes), never from client input.

const client = require('prom-client')

const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

// Requests refused by what they sent or by load, per store (lrs_store_refusals_total's `reason`).
const REFUSALS = new Map([[400, 'invalid'], [413, 'invalid'], [403, 'forbidden'], [409, 'conflict'], [412, 'conflict'], [429, 'overload']])

// `storeLabel(number)`: the `store` label of the per-store metrics (store-labels.js).
function createInstruments ({ statementsInFlight = () => 0, bytesInFlight = () => 0, storeLabel = async (number) => String(number) } = {}) {
  const registry = new client.Registry()
  const registers = [registry]
  const instruments = {
    registry,
    requests: new client.Counter({ name: 'lrs_http_requests_total', help: 'HTTP requests answered, by route, method and status.', labelNames: ['route', 'method', 'status'], registers }),
    requestSeconds: new client.Histogram({ name: 'lrs_http_request_duration_seconds', help: 'Time to answer a request, by route and method.', labelNames: ['route', 'method'], buckets: SECONDS, registers }),
    statementsStored: new client.Counter({ name: 'lrs_statements_stored_total', help: 'Statements durably stored by the write path (POST and PUT).', registers }),
    storeStatementsStored: new client.Counter({ name: 'lrs_store_statements_stored_total', help: 'Statements durably stored by the write path (POST and PUT), by store (its id).', labelNames: ['store'], registers }),
    storeRefusals: new client.Counter({ name: 'lrs_store_refusals_total', help: 'Authenticated requests refused, by store (its id) and reason: invalid (400, 413), forbidden (403), conflict (409, 412), overload (429).', labelNames: ['store', 'reason'], registers }),
    batchStatements: new client.Histogram({ name: 'lrs_batch_statements', help: 'Statements per batch write (group commit).', buckets: [1, 5, 10, 20, 50, 100, 200, 500, 1000, 2000], registers }),
    batchSeconds: new client.Histogram({ name: 'lrs_batch_write_duration_seconds', help: 'Time of one batch write, until durable.', buckets: SECONDS, registers }),
    overloadRejections: new client.Counter({ name: 'lrs_overload_rejections_total', help: 'Requests answered 429 (load shedding, in-flight limits, authentication limits).', labelNames: ['route'], registers }),
    authFailures: new client.Counter({ name: 'lrs_auth_failures_total', help: 'Requests answered 401 (missing or wrong credentials).', registers }),
    databaseErrors: new client.Counter({ name: 'lrs_database_errors_total', help: 'Requests that failed on the store: unavailable (503) or query timeout (504).', labelNames: ['code'], registers }),
    querySeconds: new client.Histogram({ name: 'lrs_statement_query_duration_seconds', help: 'Time of a GET /statements page in the store, by query shape (the filters used).', labelNames: ['shape'], buckets: SECONDS, registers }),
    statementsInFlight: new client.Gauge({ name: 'lrs_statements_in_flight', help: 'Statements accepted and not yet stored.', registers, collect () { this.set(statementsInFlight()) } }),
    bytesInFlight: new client.Gauge({ name: 'lrs_request_bytes_in_flight', help: 'Request body bytes held in memory.', registers, collect () { this.set(bytesInFlight()) } })
  }
  // Every figure above moves with a request (answered, or held in flight):
  // while this stays the same, the registry reads as it did (a worker with
  // nothing to publish publishes nothing: cluster-metrics.js).
  // Per store: `stored` statements of store `number`; a request of store
  // `number` answered `status` (counted when it is a refusal).
  instruments.countStored = (number, stored) => {
    storeLabel(number).then((store) => instruments.storeStatementsStored.inc({ store }, stored), () => {})
  }
  instruments.countAnswer = (number, status) => {
    const reason = REFUSALS.get(status)
    if (reason) storeLabel(number).then((store) => instruments.storeRefusals.inc({ store, reason }), () => {})
  }
  let answered = 0
  instruments.answered = () => { answered++ }
  instruments.activity = () => `${answered} ${statementsInFlight()} ${bytesInFlight()}`
  return instruments
}

// Per worker: prom-client's process and Node.js metrics, with a `worker`
// label so that each worker's series stay apart when merged.
// The event loop delay is sampled every EVENT_LOOP_SAMPLE_MS rather than
// prom-client's 10 ms: each sample wakes the worker, and 100 wakeups a
// second in each of 8 idle workers were a measurable share of 2 cores. A
// stall still shows whole (the sample after it comes that much late).
const EVENT_LOOP_SAMPLE_MS = 100

function createProcessRegistry (worker) {
  const registry = new client.Registry()
  registry.setDefaultLabels({ worker })
  client.collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS })
  return registry
}

// The shape of a statements query, for the query latency label: the
// filters it uses, in a fixed order.
const SHAPE_FILTERS = ['agent', 'verb', 'activity', 'registration', 'since', 'until']

function queryShape (params) {
  const used = SHAPE_FILTERS.filter((f) => params[f] !== undefined && params[f] !== null)
  return used.length ? used.join('+') : 'none'
}

module.exports = { createInstruments, createProcessRegistry, queryShape }
