'use strict'

// Every setting the LRS reads, with its environment variable, default and
// meaning. The configuration table in docs/configuration.md mirrors this
// list. Values are validated once at start (ajv), frozen, and passed down;
// nothing else in src/ reads process.env.

const path = require('node:path')
const Ajv = require('ajv')
const { StartupError } = require('./errors')
const { KNOWN_SCOPES } = require('./auth/scopes')
const { keyProblem } = require('./auth/sealed-secrets')
const { forbiddenHostsProblem } = require('./forwarding/target-hosts')

const SETTINGS = [
  { key: 'port', env: 'PORT', type: 'integer', default: 8080, minimum: 0, maximum: 65535, doc: 'HTTP listen port.' },
  { key: 'host', env: 'HOST', type: 'string', default: '0.0.0.0', doc: 'HTTP listen address.' },
  { key: 'mongodbUri', env: 'MONGODB_URI', type: 'string', default: '', secret: 'url', doc: 'MongoDB connection string (standalone, replica set or sharded cluster): the `mongodb` storage engine. Unset: the `sqlite` engine, one database file in LRS_DATA_DIR.' },
  { key: 'mongodbDb', env: 'MONGODB_DB', type: 'string', default: 'lrs', pattern: '^[A-Za-z0-9_-]{1,63}$', doc: 'Database name.' },
  { key: 'mongodbPoolSize', env: 'MONGODB_POOL_SIZE', type: 'integer', default: 50, minimum: 1, doc: 'Most connections each worker opens to MongoDB.' },
  { key: 'writeConcern', env: 'LRS_WRITE_CONCERN', type: 'string', default: 'majority', pattern: '^(majority|[0-9]+)$', doc: 'Write concern `w` for statement and document writes, always with `j:true`: a request is answered only after the write is journaled on this many members (`majority`: a majority of the replica set; on a single server, that server\'s journal).' },
  { key: 'queryTimeoutMs', env: 'LRS_QUERY_TIMEOUT_MS', type: 'integer', default: 30000, minimum: 100, doc: 'Longest a statement query may run (ms), every database call of one GET page together (and maxTimeMS on each MongoDB query); beyond it the request gets 504 LRS_ERR_QUERY_TIMEOUT asking to narrow the query.' },
  { key: 'dataDir', env: 'LRS_DATA_DIR', type: 'string', default: './data', doc: 'Folder of the SQLite database files (lrs.sqlite and the index file lrs-index.sqlite; only without MONGODB_URI), of the workers\' metrics (metrics/), of what they tell each other of verified credentials (auth/) and of import checkpoints (imports/). Every worker of one LRS shares it.' },
  { key: 'sqliteWriter', env: 'LRS_SQLITE_WRITER', type: 'string', default: 'auto', enum: ['auto', 'process', 'thread'], doc: 'Who writes the SQLite file. `process`: the host\'s one writer process (PM2 app `lrs-writer`), which every worker sends its writes to over a Unix socket (LRS_WRITER_SOCKET), so workers never contend for the file\'s write lock. `thread`: a writer thread in each process. `auto`: `process` under PM2 (`npm start`; ecosystem.config.js starts the writer), `thread` for a process on its own (`npm run start:single`, the CLIs).' },
  { key: 'writerSocket', env: 'LRS_WRITER_SOCKET', type: 'string', default: '', doc: 'With the writer process: the path of its Unix socket, the same for the writer and every worker. Unset: LRS_DATA_DIR/writer.sock, or, where the data folder cannot hold a socket (FUSE, some network and container bind mounts) or that path is too long, lrs-writer-<hash of the folder>.sock in the temporary folder; the writer listens on the first that works and the workers try both.' },
  { key: 'writerWaitMs', env: 'LRS_WRITER_WAIT_MS', type: 'integer', default: 5000, minimum: 100, doc: 'With the writer process: how long a write waits for the writer while it restarts (pm2 reload, a crash) before the request gets 503 with Retry-After (ms).' },
  { key: 'adminUser', env: 'LRS_ADMIN_USER', type: 'string', default: '', doc: 'Key of a bootstrap credential with scopes `all` and `admin`, created (or updated) at start. Unset: no bootstrap credential.' },
  { key: 'adminPassword', env: 'LRS_ADMIN_PASSWORD', type: 'string', default: '', secret: true, doc: 'Secret of the bootstrap credential (stored hashed with scrypt). Required when LRS_ADMIN_USER is set.' },
  { key: 'authorityHomePage', env: 'LRS_AUTHORITY_HOMEPAGE', type: 'string', default: 'http://localhost/lrs', doc: 'account.homePage of the authority Agent the LRS sets on statements (its account.name is the credential key).' },
  { key: 'defaultXapiVersion', env: 'LRS_DEFAULT_XAPI_VERSION', type: 'string', default: 'auto', enum: ['auto', '1.0.3', '2.0.0'], doc: 'xAPI version reported in X-Experience-API-Version when a request carries no valid version header (that request still gets 400). `auto`: the version the same client (same Authorization header) last used on this worker, else 1.0.3.' },
  { key: 'statementsMaxLimit', env: 'LRS_STATEMENTS_MAX_LIMIT', type: 'integer', default: 100, minimum: 1, maximum: 10000, doc: 'Most statements in one GET /statements page; also what limit=0 means.' },
  { key: 'bodyLimit', env: 'LRS_BODY_LIMIT', type: 'integer', default: 20 * 1024 * 1024, minimum: 1024, doc: 'Largest request body in bytes (statements with their attachments, documents); larger gets 413 before it is read.' },
  { key: 'maxStatementsPerRequest', env: 'LRS_MAX_STATEMENTS_PER_REQUEST', type: 'integer', default: 1000, minimum: 1, doc: 'Most statements in one POST; more gets 413.' },
  { key: 'maxStatementBytes', env: 'LRS_MAX_STATEMENT_BYTES', type: 'integer', default: 1024 * 1024, minimum: 1024, maximum: 15 * 1024 * 1024, doc: 'Largest single statement as stored (bytes of JSON); larger gets 413. At most 15 MiB (a MongoDB document holds 16 MiB).' },
  { key: 'maxJsonDepth', env: 'LRS_MAX_JSON_DEPTH', type: 'integer', default: 32, minimum: 8, maximum: 1000, doc: 'Deepest nesting of objects and arrays in a statement request, an agent parameter or a merged JSON document; deeper gets 400.' },
  { key: 'maxStringLength', env: 'LRS_MAX_STRING_LENGTH', type: 'integer', default: 256 * 1024, minimum: 1024, doc: 'Longest string (characters, keys included) in a statement request or an agent parameter; longer gets 400.' },
  { key: 'maxIriLength', env: 'LRS_MAX_IRI_LENGTH', type: 'integer', default: 2048, minimum: 64, doc: 'Longest IRI (ids of verbs and activities, extension keys, ...) in statements and query parameters; longer gets 400.' },
  { key: 'maxDocumentBytes', env: 'LRS_MAX_DOCUMENT_BYTES', type: 'integer', default: 8 * 1024 * 1024, minimum: 1024, maximum: 15 * 1024 * 1024, doc: 'Largest State, Activity Profile or Agent Profile document (bytes); larger gets 413. At most 15 MiB (a MongoDB document holds 16 MiB). Attachments are stored in chunks and are bounded by LRS_BODY_LIMIT only.' },
  { key: 'batchMaxStatements', env: 'LRS_BATCH_MAX_STATEMENTS', type: 'integer', default: 1000, minimum: 1, doc: 'Most statements the write batcher puts in one write.' },
  { key: 'batchConcurrentWrites', env: 'LRS_BATCH_CONCURRENT_WRITES', type: 'integer', default: 4, minimum: 1, doc: 'Most batch writes in flight at once per worker (a second one starts only when a full batch waits).' },
  { key: 'maxInFlightStatements', env: 'LRS_MAX_IN_FLIGHT_STATEMENTS', type: 'integer', default: 10000, minimum: 1, doc: 'Statements accepted but not yet stored, per worker; beyond it requests get 429 with Retry-After.' },
  { key: 'maxInFlightBytes', env: 'LRS_MAX_IN_FLIGHT_BYTES', type: 'integer', default: 64 * 1024 * 1024, minimum: 1024, doc: 'Request body bytes held in memory at once, per worker; beyond it requests get 429 with Retry-After before their body is read. Only authenticated requests spend it.' },
  { key: 'maxWaitMs', env: 'LRS_MAX_WAIT_MS', type: 'integer', default: 500, minimum: 10, doc: 'Longest a statement write accepted now is expected to wait for its statements to be stored (the requests admitted before it and the write backlog at the recent drain rate, or a write stuck that long); beyond it the request gets 429 with Retry-After before its body is read, so accepted requests keep their latency under overload (ms).' },
  { key: 'refusalsPerSecond', env: 'LRS_REFUSALS_PER_SECOND', type: 'integer', default: 20, minimum: 1, doc: 'Refusals decided before the body is read (401, and 429 for load or failed authentications) answered at once per second, per worker; beyond it a refusal\'s answer is held (no CPU) until the budget allows, so clients that retry at once without honouring Retry-After are paced instead of taking the CPU accepted requests need.' },
  { key: 'refusalHoldMaxMs', env: 'LRS_REFUSAL_HOLD_MAX_MS', type: 'integer', default: 5000, minimum: 0, doc: 'Longest a refusal\'s answer is held beyond LRS_REFUSALS_PER_SECOND (ms); 0: never held.' },
  { key: 'consistencyMarginMs', env: 'LRS_CONSISTENCY_MARGIN_MS', type: 'integer', default: 2000, minimum: 10, doc: 'X-Experience-API-Consistent-Through is now minus this margin: every statement stored at or before it is visible, on every worker. A batch that takes longer to become visible is given a later stored time before it is acknowledged (ms).' },
  { key: 'clockSkewMs', env: 'LRS_CLOCK_SKEW_MS', type: 'integer', default: 1000, minimum: 0, maximum: 60000, doc: 'The most the clocks of the hosts that share one database may differ (ms; NTP keeps them within milliseconds). X-Experience-API-Consistent-Through is set this much earlier again, so that it holds for statements another host stored by its own clock (docs/several-hosts.md). One host alone: 0 is enough.' },
  { key: 'writeTimeoutMs', env: 'LRS_WRITE_TIMEOUT_MS', type: 'integer', default: 10000, minimum: 100, doc: 'Longest a statement write waits for the database to store its batch (ms); beyond it the request gets 503 with Retry-After (its statements may have been stored meanwhile: a retry with the same ids is answered as stored).' },
  { key: 'cursorKey', env: 'LRS_CURSOR_KEY', type: 'string', default: '', secret: true, pattern: '^(|.{32,})$', doc: 'Key (32 characters or more) that signs `more` continuation tokens. Unset: a random key is created once and kept in the database, shared by every worker and restart.' },
  { key: 'corsOrigins', env: 'LRS_CORS_ORIGINS', type: 'string', default: '*', doc: 'Comma-separated origins browser content may call the LRS from, with credentials (`*`: any origin). Other origins get no CORS headers.' },
  { key: 'trustProxy', env: 'LRS_TRUST_PROXY', type: 'string', default: 'false', doc: 'Express `trust proxy`: `false`, `true`, a hop count or addresses/subnets. Decides which client address failed-authentication limits count per (behind a proxy, set it, or every client shares the proxy\'s address).' },
  { key: 'authMaxFailures', env: 'LRS_AUTH_MAX_FAILURES', type: 'integer', default: 10, minimum: 1, doc: 'Failed authentications from one client address within LRS_AUTH_FAILURE_WINDOW_S before its further attempts get 429 with Retry-After; past as many failures for one key, only addresses without failures may still try that key (per worker). An Authorization header verified by any worker of the host is never limited.' },
  { key: 'authShareKey', env: 'LRS_AUTH_SHARE_KEY', type: 'string', default: '', secret: true, pattern: '^(|.{32,})$', doc: 'Key (32 characters or more) of the digests by which the workers of one host tell each other which Authorization headers they have verified (files in LRS_DATA_DIR/auth/). ecosystem.config.js draws a new random one at each start and gives it to every worker; set it only for workers started some other way. Unset: each process draws its own and shares with none.' },
  { key: 'authFailureWindowS', env: 'LRS_AUTH_FAILURE_WINDOW_S', type: 'integer', default: 60, minimum: 1, doc: 'Window of LRS_AUTH_MAX_FAILURES (s).' },
  { key: 'basicAuth', env: 'LRS_BASIC_AUTH', type: 'string', default: 'on', enum: ['on', 'off'], doc: 'HTTP Basic (a credential\'s key and secret) on /xapi, /admin and /metrics. `off`: bearer tokens only (LRS_OIDC_ISSUERS or POST /oauth/token, where credentials still authenticate as OAuth clients); Basic gets 401.' },
  { key: 'oidcIssuers', env: 'LRS_OIDC_ISSUERS', type: 'string', default: '', doc: 'Comma-separated OpenID Connect issuers (as their discovery document names them, https; http only for localhost) whose JWT access tokens are accepted as `Authorization: Bearer` on every API. Each issuer\'s discovery document and keys (JWKS) are fetched when its first token arrives, kept for 10 minutes, fetched again at once for a key id they lack (at most every 5 s), and kept up to 24 h while the issuer cannot be reached. Needs LRS_OIDC_AUDIENCE.' },
  { key: 'oidcAudience', env: 'LRS_OIDC_AUDIENCE', type: 'string', default: '', doc: 'The `aud` a token from LRS_OIDC_ISSUERS must carry (the identifier this LRS is registered under at the issuer); comma-separated, one of them (issuers that name the LRS differently).' },
  { key: 'oidcScopeClaim', env: 'LRS_OIDC_SCOPE_CLAIM', type: 'string', default: 'scope', pattern: '^[A-Za-z0-9_.:-]{1,64}$', doc: 'The claim of a token that holds its scopes: a space-separated string (`scope`) or an array of strings (`scp`, `roles`). Only this LRS\'s scope names count (docs/api.md, Scopes), after LRS_OIDC_SCOPE_PREFIX is taken off.' },
  { key: 'oidcScopePrefix', env: 'LRS_OIDC_SCOPE_PREFIX', type: 'string', default: '', pattern: '^[^\\s]{0,64}$', doc: 'A prefix the issuer puts before this LRS\'s scope names (`lrs:` makes `lrs:statements/write` the scope `statements/write`); scopes without it are not this LRS\'s and are ignored.' },
  { key: 'oidcStoreClaim', env: 'LRS_OIDC_STORE_CLAIM', type: 'string', default: 'lrs_store', pattern: '^[A-Za-z0-9_.:-]{1,64}$', doc: 'The claim of a token that names its store (a store id); a token without it acts in the default store, one naming a store that does not exist is refused.' },
  { key: 'oidcClockToleranceS', env: 'LRS_OIDC_CLOCK_TOLERANCE_S', type: 'integer', default: 30, minimum: 0, maximum: 300, doc: 'Leeway for the clocks of issuers and this LRS when checking a token\'s `exp`, `nbf` and `iat` (s).' },
  { key: 'tokenTtlS', env: 'LRS_TOKEN_TTL_S', type: 'integer', default: 3600, minimum: 60, maximum: 86400, doc: 'Lifetime of the access tokens POST /oauth/token gives (s).' },
  { key: 'tokenKeyRotationS', env: 'LRS_TOKEN_KEY_ROTATION_S', type: 'integer', default: 86400, minimum: 60, doc: 'How often the key that signs the tokens of POST /oauth/token changes (s). The keys are kept in the database, shared by every worker; GET /oauth/jwks.json publishes the previous, current and next ones. At least LRS_TOKEN_TTL_S.' },
  { key: 'publicUrl', env: 'LRS_PUBLIC_URL', type: 'string', default: '', doc: 'The LRS\'s address as people\'s browsers reach it (`https://lrs.example.org`, no path): where the identity provider sends the console\'s sign-in back (`<LRS_PUBLIC_URL>/console/sso/callback`) and where sign-out returns. Needed with LRS_CONSOLE_OIDC_ISSUER.' },
  { key: 'consoleOidcIssuer', env: 'LRS_CONSOLE_OIDC_ISSUER', type: 'string', default: '', doc: 'OpenID Connect issuer people sign in to the console with (single sign-on: authorization code flow with PKCE); https, http only for localhost. Unset: the console signs in with a key and secret only.' },
  { key: 'consoleOidcClientId', env: 'LRS_CONSOLE_OIDC_CLIENT_ID', type: 'string', default: '', doc: 'The console\'s client id at LRS_CONSOLE_OIDC_ISSUER (redirect URI `<LRS_PUBLIC_URL>/console/sso/callback`, post-logout redirect URI `<LRS_PUBLIC_URL>/console/`).' },
  { key: 'consoleOidcClientSecret', env: 'LRS_CONSOLE_OIDC_CLIENT_SECRET', type: 'string', default: '', secret: true, doc: 'The console\'s client secret there (client_secret_basic). Unset: a public client (PKCE only).' },
  { key: 'consoleOidcScopes', env: 'LRS_CONSOLE_OIDC_SCOPES', type: 'string', default: 'openid profile email', pattern: '^openid( [\\x21-\\x7e]+)*$', doc: 'Scopes the console asks the issuer for at sign-in (space-separated, `openid` first); add the one that releases LRS_CONSOLE_OIDC_ROLES_CLAIM if the issuer needs it (`groups`, `roles`).' },
  { key: 'consoleOidcRolesClaim', env: 'LRS_CONSOLE_OIDC_ROLES_CLAIM', type: 'string', default: 'groups', pattern: '^[A-Za-z0-9_.:-]{1,64}$', doc: 'The claim (ID token, else userinfo) holding a person\'s groups or roles: a string or an array of strings.' },
  { key: 'consoleOidcRoles', env: 'LRS_CONSOLE_OIDC_ROLES', type: 'string', default: '', doc: 'Who may use the console and with which scopes: `group=scope scope;group=scope` (`lrs-admins=admin all stores/admin;lrs-auditors=admin all/read`). A person gets the scopes of every group of theirs listed; one without `admin` among them is refused the console.' },
  { key: 'consoleSessionIdleS', env: 'LRS_CONSOLE_SESSION_IDLE_S', type: 'integer', default: 1800, minimum: 60, doc: 'A console session signed in with LRS_CONSOLE_OIDC_ISSUER ends after this long without a request (s).' },
  { key: 'consoleSessionMaxS', env: 'LRS_CONSOLE_SESSION_MAX_S', type: 'integer', default: 28800, minimum: 60, doc: 'A console session ends this long after its sign-in, in use or not (s).' },
  { key: 'credentialRefreshS', env: 'LRS_CREDENTIAL_REFRESH_S', type: 'integer', default: 300, minimum: 1, doc: 'How often each worker re-reads the credentials (s); an unknown key triggers a read at once (at most once a second).' },
  { key: 'credentialPollMs', env: 'LRS_CREDENTIAL_POLL_MS', type: 'integer', default: 500, minimum: 50, doc: 'How often each worker checks whether any credential changed (one small read; ms). A credential created, changed or revoked through /admin takes effect on every worker within this time and the read.' },
  { key: 'metricsPublishMs', env: 'LRS_METRICS_PUBLISH_MS', type: 'integer', default: 1000, minimum: 100, doc: 'How often each worker publishes its metrics to LRS_DATA_DIR/metrics for GET /metrics to merge (ms): the other workers\' figures in a scrape are at most this old, their process_* and nodejs_* metrics at most ten times this. A worker that answered no request since its last publish skips it.' },
  { key: 'forwardUrls', env: 'LRS_FORWARD_URLS', type: 'string', default: '', secret: 'url', doc: 'Comma-separated upstream LRS endpoints (https://user:pass@host/xapi) that stored statements are forwarded to, with their ids. Each statement gets an outbox entry per upstream in the write that stores it; each worker posts them in batches. 408/429/5xx and network errors are retried with capped backoff; a 409 is resolved statement by statement; any other 4xx moves the statements to dead letters (see /admin). Empty: forwarding off, and the write path reads nothing back.' },
  { key: 'reportTimeoutMs', env: 'LRS_REPORT_TIMEOUT_MS', type: 'integer', default: 10000, minimum: 100, maximum: 600000, doc: 'Longest a report (POST /admin/reports/run) may read statements (ms); past it the answer is 503 LRS_ERR_REPORT_TIMEOUT with what would narrow it.' },
  { key: 'feedMaxPerCredential', env: 'LRS_FEED_MAX_PER_CREDENTIAL', type: 'integer', default: 10, minimum: 1, maximum: 10000, doc: 'Most live feeds (GET /feed/statements) one credential may hold open on one worker; one more gets 429.' },
  { key: 'feedPollMs', env: 'LRS_FEED_POLL_MS', type: 'integer', default: 250, minimum: 50, maximum: 10000, doc: 'How often each worker asks a store with open live feeds for its new statements, once for all of them (ms). An event reaches its reader within about this after its statement was stored on SQLite; on MongoDB LRS_CONSISTENCY_MARGIN_MS + LRS_CLOCK_SKEW_MS later (what several writers need to be consistent).' },
  { key: 'forwardTimeoutMs', env: 'LRS_FORWARD_TIMEOUT_MS', type: 'integer', default: 10000, minimum: 100, doc: 'Longest wait for an upstream to answer one forwarded batch (ms). A worker holds the batch for twice that; if it dies meanwhile, another worker takes the batch after that time.' },
  { key: 'forwardForbiddenHosts', env: 'LRS_FORWARD_FORBIDDEN_HOSTS', type: 'string', default: '', doc: 'Where forwarders (/admin/forwarders, made by a store\'s admin) may not send: comma-separated `private` (loopback, private, link-local and unique-local ranges), addresses, CIDR ranges and host names (`*.internal`: any name under it). A host name is resolved and each of its addresses checked when the forwarder is set and before every delivery. LRS_FORWARD_URLS is not checked (the operator sets it). Empty: anywhere. Set `private` where store admins are not the operator.' },
  { key: 'secretsKey', env: 'LRS_SECRETS_KEY', type: 'string', default: '', secret: true, doc: 'The key secrets are sealed with in the database (AES-256-GCM): forwarders\' passwords, tokens and webhook signing secrets, the credentials in stores\' upstream URLs, the LRS\'s own token-signing and cursor keys (without it those three are kept in plain text: `lrs secrets reseal` seals them once it is set). 32 bytes as 64 hex digits or base64 (`openssl rand -base64 32`); the same on every host. Unset: forwarders that need a secret are refused (409 LRS_ERR_SECRETS_KEY_MISSING). Rotation: docs/forwarders.md.' },
  { key: 'secretsOldKeys', env: 'LRS_SECRETS_OLD_KEYS', type: 'string', default: '', secret: true, doc: 'Former LRS_SECRETS_KEY values, comma-separated, still accepted to open secrets sealed with them while a key is rotated (`lrs secrets reseal` seals every secret again with the current key; docs/forwarders.md).' },
  { key: 'retentionIntervalS', env: 'LRS_RETENTION_INTERVAL_S', type: 'integer', default: 300, minimum: 1, doc: 'How often the stores\' retention (a store\'s `retentionDays`, PUT /admin/stores/{id}) removes the statements stored longer ago than it keeps them (s). One process of the LRS at a time does it, at most 10,000 statements a store and a run; a voided statement goes with its voiding statements.' },
  { key: 'logLevel', env: 'LRS_LOG_LEVEL', type: 'string', default: 'info', enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], doc: 'pino log level.' },
  { key: 'logFormat', env: 'LRS_LOG_FORMAT', type: 'string', default: 'auto', enum: ['auto', 'json', 'pretty'], doc: 'Log lines as JSON (one object a line, for PM2, containers and log shippers) or `pretty` (readable lines for a person). `auto`: pretty on a terminal, JSON otherwise.' },
  { key: 'instances', env: 'LRS_INSTANCES', type: 'string', default: 'max', pattern: '^(max|-?[0-9]+)$', doc: 'PM2 cluster workers (`max` = one per core). Read by ecosystem.config.js.' },
  { key: 'compression', env: 'LRS_COMPRESSION', type: 'string', default: 'on', enum: ['on', 'off'], doc: 'Compress answers with brotli or gzip, as the client\'s Accept-Encoding asks: the JSON answers of /xapi/statements (pages of statements), the /admin API and /openapi.json, each as it is sent (brotli quality 4, gzip level 6); the console\'s and docs\' static files once per file and worker (brotli 9, gzip 9), kept in memory. Never the State and profile documents, attachments, or anything under LRS_COMPRESSION_MIN_BYTES. `off`: nothing is compressed (where a proxy in front compresses).' },
  { key: 'compressionMinBytes', env: 'LRS_COMPRESSION_MIN_BYTES', type: 'integer', default: 1024, minimum: 0, doc: 'Smallest answer body compressed (bytes); smaller ones go as they are: a packet or two, where compressing saves nothing worth its CPU.' },
  { key: 'keepAliveTimeoutMs', env: 'LRS_KEEP_ALIVE_TIMEOUT_MS', type: 'integer', default: 65000, minimum: 1000, doc: 'How long an idle keep-alive connection stays open (ms); above the idle timeout of any load balancer in front (often 60 s).' },
  { key: 'shutdownGraceMs', env: 'LRS_SHUTDOWN_GRACE_MS', type: 'integer', default: 5000, minimum: 0, doc: 'On shutdown, how long open keep-alive connections are still served (with Connection: close) before idle ones are closed (ms); the shutdown goes on as soon as clients have closed them all.' },
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

// The settings as given (the default where a variable is unset or empty),
// before validation.
function rawSettings (env) {
  const raw = {}
  for (const s of SETTINGS) {
    const value = env[s.env]
    raw[s.key] = value === undefined || value === '' ? s.default : value
  }
  return raw
}

// Every problem of a configuration, one sentence each naming its variable
// (none: valid). `lrs config` prints them all; loadConfig refuses to start
// on any.
function configProblems (env = process.env) {
  return checked(env).problems
}

// The settings, validated (numbers coerced), and their problems.
function checked (env) {
  const raw = rawSettings(env)
  const problems = []
  if (!validate(raw)) {
    for (const e of validate.errors) {
      const setting = SETTINGS.find((s) => '/' + s.key === e.instancePath)
      const allowed = e.params && e.params.allowedValues ? ` (${e.params.allowedValues.join(', ')})` : ''
      problems.push(`${setting ? setting.env : e.instancePath} ${e.message}${allowed}`)
    }
  }
  if (raw.adminUser && !raw.adminPassword) problems.push('LRS_ADMIN_PASSWORD is required with LRS_ADMIN_USER')
  if (String(raw.adminUser).includes(':')) problems.push('LRS_ADMIN_USER must not contain ":"')
  if (raw.shutdownGraceMs >= raw.shutdownTimeoutMs) problems.push('LRS_SHUTDOWN_GRACE_MS must be below LRS_SHUTDOWN_TIMEOUT_MS: after the grace period a worker still stores what it holds')
  for (const problem of issuerProblems(raw)) problems.push(problem)
  for (const problem of consoleSignInProblems(raw)) problems.push(problem)
  if (raw.tokenKeyRotationS < raw.tokenTtlS) problems.push('LRS_TOKEN_KEY_ROTATION_S must be at least LRS_TOKEN_TTL_S: a token outlives no more than one rotation')
  if (raw.secretsKey && keyProblem(raw.secretsKey)) problems.push(`LRS_SECRETS_KEY ${keyProblem(raw.secretsKey)}`)
  for (const k of listOf(raw.secretsOldKeys)) if (keyProblem(k)) problems.push(`LRS_SECRETS_OLD_KEYS has a key that ${keyProblem(k)}`)
  const hostsProblem = forbiddenHostsProblem(raw.forwardForbiddenHosts)
  if (hostsProblem) problems.push(hostsProblem)
  for (const u of listOf(raw.forwardUrls)) {
    try { new URL(u) } catch { problems.push(`LRS_FORWARD_URLS has a bad URL: ${maskUrl(u)}`) } // eslint-disable-line no-new
  }
  return { raw, problems }
}

// An issuer is named by an absolute https URL (http only on this host:
// a token's keys must not come over a channel anyone between could change).
function issuerProblems (raw) {
  const issuers = listOf(raw.oidcIssuers)
  const problems = []
  if (issuers.length && !raw.oidcAudience) problems.push('LRS_OIDC_AUDIENCE is required with LRS_OIDC_ISSUERS')
  for (const issuer of issuers) {
    if (!isTrustedUrl(issuer) || /[?#]/.test(issuer)) problems.push(`LRS_OIDC_ISSUERS has an issuer that is not an https URL (http only for localhost): ${issuer}`)
  }
  return problems
}

// Console single sign-on needs its client, where the browser comes back
// to, and a mapping that lets someone in.
function consoleSignInProblems (raw) {
  const problems = []
  if (raw.publicUrl && (!isTrustedUrl(raw.publicUrl) || new URL(raw.publicUrl).pathname !== '/' || /[?#]/.test(raw.publicUrl))) problems.push('LRS_PUBLIC_URL must be an https origin without a path (http only for localhost)')
  if (!raw.consoleOidcIssuer) return problems
  if (!isTrustedUrl(raw.consoleOidcIssuer) || /[?#]/.test(raw.consoleOidcIssuer)) problems.push('LRS_CONSOLE_OIDC_ISSUER is not an https URL (http only for localhost)')
  if (!raw.consoleOidcClientId) problems.push('LRS_CONSOLE_OIDC_CLIENT_ID is required with LRS_CONSOLE_OIDC_ISSUER')
  if (!raw.publicUrl) problems.push('LRS_PUBLIC_URL is required with LRS_CONSOLE_OIDC_ISSUER (where the issuer sends the browser back)')
  try {
    if (!parseRoles(raw.consoleOidcRoles).size) problems.push('LRS_CONSOLE_OIDC_ROLES is required with LRS_CONSOLE_OIDC_ISSUER: without it nobody may use the console')
  } catch (err) {
    problems.push(err.message)
  }
  if (raw.consoleSessionIdleS > raw.consoleSessionMaxS) problems.push('LRS_CONSOLE_SESSION_IDLE_S must not exceed LRS_CONSOLE_SESSION_MAX_S')
  return problems
}

// `group=scope scope;group=scope` -> Map(group -> [scope]); throws on a
// scope this LRS does not know.
function parseRoles (value) {
  const roles = new Map()
  for (const entry of String(value).split(';').map((e) => e.trim()).filter(Boolean)) {
    const eq = entry.indexOf('=')
    const group = eq < 0 ? '' : entry.slice(0, eq).trim()
    const scopes = eq < 0 ? [] : entry.slice(eq + 1).split(' ').filter(Boolean)
    if (!group || !scopes.length) throw new Error(`LRS_CONSOLE_OIDC_ROLES has an entry that is not group=scopes: ${entry}`)
    const unknown = scopes.filter((sc) => !KNOWN_SCOPES.has(sc))
    if (unknown.length) throw new Error(`LRS_CONSOLE_OIDC_ROLES names scopes this LRS does not know: ${unknown.join(', ')}`)
    roles.set(group, [...new Set([...(roles.get(group) || []), ...scopes])])
  }
  return roles
}

function isTrustedUrl (value) {
  let url
  try { url = new URL(value) } catch { return false }
  if (url.username || url.password) return false
  return url.protocol === 'https:' || (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname))
}

const listOf = (value) => String(value).split(',').map((v) => v.trim()).filter(Boolean)

// A URL without the password of its user part (mongodb://u:****@host).
function maskUrl (url) {
  return url.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1****@')
}

// What a person checking the configuration sees (`lrs config`): each
// setting's variable, its value with secrets masked, and whether it came
// from the environment or is the default.
function describeSettings (env = process.env) {
  return SETTINGS.map((s) => {
    const given = env[s.env] !== undefined && env[s.env] !== ''
    const value = given ? env[s.env] : s.default
    let shown = value === '' ? 'unset' : String(value)
    if (s.secret === true && value !== '') shown = '********'
    if (s.secret === 'url' && value !== '') shown = listOf(value).map(maskUrl).join(',')
    return { env: s.env, value: shown, source: given ? 'environment' : 'default' }
  })
}

function loadConfig (env = process.env) {
  const { raw, problems } = checked(env)
  if (problems.length) throw new StartupError(`invalid configuration: ${problems.join('; ')}`)
  const corsOrigins = listOf(raw.corsOrigins)
  const forwardUrls = raw.forwardUrls ? listOf(raw.forwardUrls) : []
  return Object.freeze({
    ...raw,
    forwardUrls: Object.freeze(forwardUrls),
    oidcIssuers: Object.freeze(listOf(raw.oidcIssuers)),
    oidcAudience: Object.freeze(listOf(raw.oidcAudience)),
    consoleOidcRoles: raw.consoleOidcIssuer ? parseRoles(raw.consoleOidcRoles) : new Map(),
    publicUrl: raw.publicUrl.replace(/\/$/, ''),
    corsOrigins: Object.freeze(corsOrigins),
    trustProxy: parseTrustProxy(raw.trustProxy),
    storage: raw.mongodbUri ? 'mongodb' : 'sqlite',
    dataDir: path.resolve(raw.dataDir)
  })
}

function parseTrustProxy (value) {
  if (value === 'false') return false
  if (value === 'true') return true
  if (/^[0-9]+$/.test(value)) return Number(value)
  return value
}

// The configuration table of docs/configuration.md, made from SETTINGS (a
// test checks that the page holds exactly this; `npm run config:docs`
// rewrites it).
function settingsTable () {
  const rows = SETTINGS.map((s) => `| \`${s.env}\` | ${s.default === '' ? 'unset' : `\`${s.default}\``} | ${s.doc} |`)
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n')
}

const SETTINGS_START = '<!-- settings:start (generated from src/config.js) -->'
const SETTINGS_END = '<!-- settings:end -->'
const SETTINGS_PAGE = path.join(__dirname, '..', 'docs', 'configuration.md')

function docsWithSettings (page) {
  const start = page.indexOf(SETTINGS_START)
  const end = page.indexOf(SETTINGS_END)
  if (start < 0 || end < start) throw new Error('docs/configuration.md has no settings markers')
  return page.slice(0, start + SETTINGS_START.length) + '\n' + settingsTable() + '\n' + page.slice(end)
}

// `readmeWithSettings`: the name from when the table was in README.md.
module.exports = { isTrustedUrl, loadConfig, configProblems, describeSettings, docsWithSettings, readmeWithSettings: docsWithSettings, SETTINGS_PAGE }

// `node src/config.js --docs` (or the old `--readme`) rewrites the table.
if (require.main === module && ['--docs', '--readme'].includes(process.argv[2])) {
  const fs = require('node:fs')
  fs.writeFileSync(SETTINGS_PAGE, docsWithSettings(fs.readFileSync(SETTINGS_PAGE, 'utf8')))
}
