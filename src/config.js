'use strict'

// Every setting the LRS reads, with its environment variable, default and
// meaning. The README's configuration table mirrors this list. Values are
// validated once at start (ajv), frozen, and passed down; nothing else in
// src/ reads process.env.

const os = require('node:os')
const path = require('node:path')
const Ajv = require('ajv')

const SETTINGS = [
  { key: 'port', env: 'PORT', type: 'integer', default: 8080, minimum: 0, maximum: 65535, doc: 'HTTP listen port.' },
  { key: 'host', env: 'HOST', type: 'string', default: '0.0.0.0', doc: 'HTTP listen address.' },
  { key: 'mongodbUri', env: 'MONGODB_URI', type: 'string', default: '', doc: 'MongoDB connection string. Unset: an embedded database is started (mongod from PATH, else FerretDB 1.24 on SQLite) with its data in LRS_DATA_DIR.' },
  { key: 'mongodbDb', env: 'MONGODB_DB', type: 'string', default: 'lrs', pattern: '^[A-Za-z0-9_-]{1,63}$', doc: 'Database name.' },
  { key: 'writeConcern', env: 'LRS_WRITE_CONCERN', type: 'string', default: 'majority', pattern: '^(majority|[0-9]+)$', doc: 'Write concern `w` for statement and document writes, always with `j:true`: a request is answered only after the write is journaled on this many members (`majority`: a majority of the replica set; on a single server, that server\'s journal).' },
  { key: 'queryTimeoutMs', env: 'LRS_QUERY_TIMEOUT_MS', type: 'integer', default: 30000, minimum: 100, doc: 'maxTimeMS on every database query (ms).' },
  { key: 'dataDir', env: 'LRS_DATA_DIR', type: 'string', default: './data', doc: 'Data folder of the embedded database (only without MONGODB_URI).' },
  { key: 'embeddedDbPort', env: 'LRS_EMBEDDED_DB_PORT', type: 'integer', default: 27018, minimum: 1, maximum: 65535, doc: 'Loopback port of the embedded database (only without MONGODB_URI).' },
  { key: 'adminUser', env: 'LRS_ADMIN_USER', type: 'string', default: '', doc: 'Key of a bootstrap credential with scope `all`, created (or updated) at start. Unset: no bootstrap credential.' },
  { key: 'adminPassword', env: 'LRS_ADMIN_PASSWORD', type: 'string', default: '', doc: 'Secret of the bootstrap credential (stored hashed with scrypt). Required when LRS_ADMIN_USER is set.' },
  { key: 'authorityHomePage', env: 'LRS_AUTHORITY_HOMEPAGE', type: 'string', default: 'http://localhost/lrs', doc: 'account.homePage of the authority Agent the LRS sets on statements (its account.name is the credential key).' },
  { key: 'defaultXapiVersion', env: 'LRS_DEFAULT_XAPI_VERSION', type: 'string', default: 'auto', enum: ['auto', '1.0.3', '2.0.0'], doc: 'xAPI version reported in X-Experience-API-Version when a request carries no valid version header (that request still gets 400). `auto`: the version the same client (same Authorization header) last used on this worker, else 1.0.3.' },
  { key: 'statementsMaxLimit', env: 'LRS_STATEMENTS_MAX_LIMIT', type: 'integer', default: 100, minimum: 1, maximum: 10000, doc: 'Most statements in one GET /statements page; also what limit=0 means.' },
  { key: 'bodyLimit', env: 'LRS_BODY_LIMIT', type: 'integer', default: 20 * 1024 * 1024, minimum: 1024, doc: 'Largest request body in bytes (statements, attachments, documents); larger gets 413.' },
  { key: 'batchMaxStatements', env: 'LRS_BATCH_MAX_STATEMENTS', type: 'integer', default: 1000, minimum: 1, doc: 'Most statements the write batcher puts in one insertMany.' },
  { key: 'maxInFlightStatements', env: 'LRS_MAX_IN_FLIGHT_STATEMENTS', type: 'integer', default: 10000, minimum: 1, doc: 'Statements accepted but not yet stored, per worker; beyond it requests get 429 with Retry-After.' },
  { key: 'maxInFlightBytes', env: 'LRS_MAX_IN_FLIGHT_BYTES', type: 'integer', default: 64 * 1024 * 1024, minimum: 1024, doc: 'Request body bytes held in memory at once, per worker; beyond it requests get 429 with Retry-After before their body is read.' },
  { key: 'forwardUrls', env: 'LRS_FORWARD_URLS', type: 'string', default: '', doc: 'Comma-separated upstream LRS statement endpoints (https://user:pass@host/xapi). Empty: forwarding off, and the write path reads nothing back.' },
  { key: 'logLevel', env: 'LRS_LOG_LEVEL', type: 'string', default: 'info', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], doc: 'pino log level.' },
  { key: 'instances', env: 'LRS_INSTANCES', type: 'string', default: 'max', pattern: '^(max|-?[0-9]+)$', doc: 'PM2 cluster workers (`max` = one per core). Read by ecosystem.config.js.' },
  { key: 'shutdownGraceMs', env: 'LRS_SHUTDOWN_GRACE_MS', type: 'integer', default: 1500, minimum: 0, doc: 'On shutdown, how long open keep-alive connections are still served (with Connection: close) before idle ones are closed (ms).' },
  { key: 'shutdownTimeoutMs', env: 'LRS_SHUTDOWN_TIMEOUT_MS', type: 'integer', default: 10000, minimum: 100, doc: 'Longest graceful shutdown (ms); PM2 kill_timeout is set above it.' }
]

const schema = {
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(SETTINGS.map((s) => [s.key, {
    type: s.type,
    ...(s.enum && { enum: s.enum }),
    ...(s.pattern && { pattern: s.pattern }),
    ...(s.minimum !== undefined && { minimum: s.minimum }),
    ...(s.maximum !== undefined && { maximum: s.maximum })
  }]))
}
const validate = new Ajv({ coerceTypes: true, allErrors: true }).compile(schema)

function loadConfig (env = process.env) {
  const raw = {}
  for (const s of SETTINGS) {
    const value = env[s.env]
    raw[s.key] = value === undefined || value === '' ? s.default : value
  }
  if (!validate(raw)) {
    const problems = validate.errors.map((e) => {
      const setting = SETTINGS.find((s) => '/' + s.key === e.instancePath)
      return `${setting ? setting.env : e.instancePath} ${e.message}`
    })
    throw new Error(`invalid configuration: ${problems.join('; ')}`)
  }
  if (raw.adminUser && !raw.adminPassword) throw new Error('invalid configuration: LRS_ADMIN_PASSWORD is required with LRS_ADMIN_USER')
  if (raw.adminUser.includes(':')) throw new Error('invalid configuration: LRS_ADMIN_USER must not contain ":"')
  const forwardUrls = raw.forwardUrls ? raw.forwardUrls.split(',').map((u) => u.trim()).filter(Boolean) : []
  for (const u of forwardUrls) {
    try { new URL(u) } catch { throw new Error(`invalid configuration: LRS_FORWARD_URLS has a bad URL: ${u}`) } // eslint-disable-line no-new
  }
  return Object.freeze({
    ...raw,
    forwardUrls: Object.freeze(forwardUrls),
    embeddedDatabase: !raw.mongodbUri,
    mongodbUri: raw.mongodbUri || `mongodb://127.0.0.1:${raw.embeddedDbPort}/`,
    dataDir: path.resolve(raw.dataDir),
    cpus: os.availableParallelism ? os.availableParallelism() : os.cpus().length
  })
}

module.exports = { loadConfig, SETTINGS }
