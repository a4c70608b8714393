'use strict'

// Wires storage, the write batcher and the resource services that the
// routes use. One place to see what depends on what.

const { createStatementBatcher } = require('./batching/statement-batcher')
const { errors } = require('./errors')
const { createStatementValidator } = require('./validation/statement-validator')
const { createStatementWriter } = require('./resources/statements/store-statements')
const { createBatchWriter } = require('./resources/statements/write-batch')
const { createStatementReader } = require('./resources/statements/read-statements')
const { areEquivalent } = require('./resources/statements/equivalence')
const { createForwarder } = require('./forwarding/forwarder')
const { createUpstreams } = require('./forwarding/upstreams')
const { sealedSecrets } = require('./auth/sealed-secrets')
const { forbiddenHosts } = require('./forwarding/target-hosts')

// `instruments`: the worker's metrics (src/metrics/instruments.js);
// `credentials`: its credential store, whose change mark also tells when
// stores changed.
function createServices ({ config, storage, credentials, logger, instruments, hooks = {} }) {
  const validator = createStatementValidator(config)
  // Forwarding: the write path queues outbox entries for the upstreams of
  // the LRS and of each statement's store (none: nothing queued, nothing
  // read back); the forwarder delivers them.
  // forwarders' secrets are sealed under LRS_SECRETS_KEY; where they may send, LRS_FORWARD_FORBIDDEN_HOSTS
  const sealed = sealedSecrets({ current: config.secretsKey, old: config.secretsOldKeys })
  const hosts = forbiddenHosts(config.forwardForbiddenHosts)
  const upstreams = createUpstreams({ config, storage, credentials, logger, sealed })
  const forwarder = createForwarder({ upstreams, timeoutMs: config.forwardTimeoutMs, outbox: storage.outbox, statements: storage.statements, logger, hosts })
  const batchWriter = createBatchWriter({
    statements: storage.statements,
    sameStatement: (storedBody, record) => areEquivalent(JSON.parse(storedBody), JSON.parse(record.body), { xapiVersion: record.xapiVersion }),
    upstreams,
    marginMs: config.consistencyMarginMs,
    timeoutMs: config.writeTimeoutMs,
    reachable: () => storage.ping(),
    logger,
    hooks
  })
  const batcher = createStatementBatcher({
    write: timed(instruments, batchWriter.writeBatch),
    maxBatch: config.batchMaxStatements,
    maxInFlight: config.maxInFlightStatements,
    maxConcurrentWrites: config.batchConcurrentWrites,
    failsQueued: (err) => err.code === errors.DatabaseUnavailable.code,
    logger
  })
  storage.ready.then(() => upstreams.start()).then(() => forwarder.start())

  return {
    validator,
    batcher,
    databaseDown: batchWriter.databaseDown,
    attachments: storage.attachments,
    documents: storage.documents,
    statementWriter: createStatementWriter({ config, validator, batcher, attachments: storage.attachments }),
    statementReader: createStatementReader({ statements: storage.statements, queryTimeoutMs: config.queryTimeoutMs, instruments, hooks }),
    upstreams,
    forwarder,
    sealed,
    hosts,
    async close () {
      await batcher.drain()
      upstreams.stop()
      await forwarder.stop()
    }
  }
}

// The batch write with its size, duration and stored statements counted.
function timed (instruments, write) {
  return async function timedWrite (groups, options) {
    const start = process.hrtime.bigint()
    const failed = await write(groups, options)
    let stored = 0
    const byStore = new Map()
    groups.forEach((g, i) => {
      if (failed.has(i) || !g.length) return
      stored += g.length
      byStore.set(g[0].store || 0, (byStore.get(g[0].store || 0) || 0) + g.length) // a request's statements are its credential's store's
    })
    for (const [store, n] of byStore) instruments.countStored(store, n)
    instruments.batchStatements.observe(groups.reduce((n, g) => n + g.length, 0))
    instruments.batchSeconds.observe(Number(process.hrtime.bigint() - start) / 1e9)
    instruments.statementsStored.inc(stored)
    return failed
  }
}

module.exports = { createServices }
