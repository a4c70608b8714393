'use strict'

// Wires the repositories, the write batcher and the resource services
// that the routes use. One place to see what depends on what.

const { statementsRepository } = require('./storage/statements-repository')
const { attachmentsRepository } = require('./storage/attachments-repository')
const { createStatementBatcher } = require('./batching/statement-batcher')
const { createStatementValidator } = require('./validation/statement-validator')
const { createStatementWriter } = require('./resources/statements/store-statements')
const { createStatementReader } = require('./resources/statements/read-statements')
const { areEquivalent } = require('./resources/statements/equivalence')
const { documentsRepository } = require('./storage/documents-repository')
const { outboxRepository } = require('./storage/outbox-repository')
const { createForwarder } = require('./forwarding/forwarder')

function createServices ({ config, database, logger }) {
  const options = { queryTimeoutMs: config.queryTimeoutMs }
  const statements = statementsRepository(database.db, options)
  const attachments = attachmentsRepository(database.db, options)
  const validator = createStatementValidator()
  // Forwarding is off unless upstreams are configured: then, and only then,
  // the write path also queues outbox entries (still no reads).
  const forwarder = config.forwardUrls.length
    ? createForwarder({ urls: config.forwardUrls, outbox: outboxRepository(database.db, options), statements, logger })
    : null
  const batcher = createStatementBatcher({
    repository: statements,
    maxBatch: config.batchMaxStatements,
    maxInFlight: config.maxInFlightStatements,
    sameStatement: (storedBody, record) => areEquivalent(JSON.parse(storedBody), JSON.parse(record.doc.body), { xapiVersion: record.xapiVersion }),
    afterStore: forwarder ? forwarder.enqueue : null,
    logger
  })
  if (forwarder) database.ready.then(() => forwarder.start())
  const statementWriter = createStatementWriter({ config, validator, batcher, attachments })
  const statementReader = createStatementReader({ statements })

  return {
    validator,
    batcher,
    attachments,
    statementWriter,
    statementReader,
    documents: documentsRepository(database.db, { ...options, engine: () => database.engine }),
    async close () {
      await batcher.drain()
      if (forwarder) await forwarder.stop()
    }
  }
}

module.exports = { createServices }
