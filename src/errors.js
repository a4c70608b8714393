'use strict'

// The error catalogue. Each entry has a stable code (never reused once
// retired; LRS_ERR_MEDIA_TYPE is retired), an HTTP status and a message
// named after the xAPI condition.
// Errors become HTTP responses in exactly one place: src/http/error-handler.js.

// A client error (4xx) takes no stack trace: none is ever logged (the error
// handler logs 5xx only), and capturing one was most of what making a
// refusal's error cost (about 10 of 11 us at 20 frames deep; a 429 under
// overload, a 400 for each bad statement).
class LrsError extends Error {
  // `quiet`: a refusal the LRS decides itself (a 503 at once while the
  // database is away), not a failure to look into: the request's own log
  // line says it, with no error line for each of thousands.
  constructor (code, status, message, { headers, cause, quiet = false } = {}) {
    const limit = Error.stackTraceLimit
    if (status < 500) Error.stackTraceLimit = 0
    try {
      super(message, cause ? { cause } : undefined)
    } finally {
      Error.stackTraceLimit = limit
    }
    this.name = 'LrsError'
    this.code = code
    this.status = status
    this.headers = headers
    this.quiet = quiet
  }
}

function define (code, status, defaultMessage) {
  const make = (message = defaultMessage, opts) => new LrsError(code, status, message, opts)
  make.code = code
  make.status = status
  return make
}

const errors = {
  BadRequest: define('LRS_ERR_REQUEST_INVALID', 400, 'Bad request'),
  InvalidStatement: define('LRS_ERR_STATEMENT_INVALID', 400, 'Invalid statement'),
  InvalidParameter: define('LRS_ERR_PARAMETER_INVALID', 400, 'Invalid parameter'),
  InvalidVersionHeader: define('LRS_ERR_VERSION_HEADER', 400, 'Missing or unsupported X-Experience-API-Version header'),
  InvalidJson: define('LRS_ERR_JSON_INVALID', 400, 'Request body is not valid JSON'),
  InvalidSignature: define('LRS_ERR_SIGNATURE_INVALID', 400, 'Invalid statement signature'),
  InvalidAttachments: define('LRS_ERR_ATTACHMENTS_INVALID', 400, 'Invalid attachments'),
  DuplicateStatementId: define('LRS_ERR_STATEMENT_ID_DUPLICATE', 400, 'The same statement id appears twice in the request'),
  Unauthorized: define('LRS_ERR_AUTH_REQUIRED', 401, 'Valid HTTP Basic credentials are required'),
  Forbidden: define('LRS_ERR_AUTH_SCOPE', 403, 'The credential does not allow this request'),
  NotFound: define('LRS_ERR_NOT_FOUND', 404, 'Not found'),
  MethodNotAllowed: define('LRS_ERR_METHOD_NOT_ALLOWED', 405, 'Method not allowed'),
  ConflictingStatement: define('LRS_ERR_STATEMENT_CONFLICT', 409, 'A different statement with this id is already stored'),
  DocumentConflict: define('LRS_ERR_DOCUMENT_CONFLICT', 409, 'The document exists: send If-Match with its ETag (or If-None-Match: *) to change it'),
  CredentialExists: define('LRS_ERR_CREDENTIAL_EXISTS', 409, 'A credential with this key exists'),
  StoreExists: define('LRS_ERR_STORE_EXISTS', 409, 'A store with this id exists'),
  StoreLimit: define('LRS_ERR_STORE_LIMIT', 409, 'This LRS holds as many stores as it can'),
  StoreNotDeletable: define('LRS_ERR_STORE_NOT_DELETABLE', 409, 'This store cannot be deleted'),
  SecretsKeyMissing: define('LRS_ERR_SECRETS_KEY_MISSING', 409, 'This LRS keeps no secrets: its operator has not set LRS_SECRETS_KEY, so a forwarder that needs a password, token or signing secret cannot be made'),
  ForwarderLimit: define('LRS_ERR_FORWARDER_LIMIT', 409, 'This store has as many forwarders as it may'),
  ForwarderManaged: define('LRS_ERR_FORWARDER_MANAGED', 409, 'This forwarder comes from the configuration (LRS_FORWARD_URLS) or the store\'s forwardUrls; change it there'),
  ConfirmationRequired: define('LRS_ERR_CONFIRMATION_REQUIRED', 400, 'Confirm with the id of what is to be deleted'),
  CredentialManaged: define('LRS_ERR_CREDENTIAL_MANAGED', 409, 'This credential is the bootstrap credential (LRS_ADMIN_USER); it is set from the configuration at start'),
  PreconditionFailed: define('LRS_ERR_PRECONDITION_FAILED', 412, 'Precondition failed'),
  PayloadTooLarge: define('LRS_ERR_PAYLOAD_TOO_LARGE', 413, 'Request body too large'),
  UnsupportedMediaType: define('LRS_ERR_MEDIA_TYPE', 415, 'The request body is not of a type this resource takes'),
  TooManyRequests: define('LRS_ERR_OVERLOADED', 429, 'The LRS is at capacity; retry shortly'),
  FeedLimit: define('LRS_ERR_FEED_LIMIT', 429, 'This credential holds as many live feeds open as it may (LRS_FEED_MAX_PER_CREDENTIAL): close one first'),
  Internal: define('LRS_ERR_INTERNAL', 500, 'Internal server error'),
  StoreFull: define('LRS_ERR_STORE_FULL', 507, 'The store is full: no space is left on its disk. Retry once space has been freed'),
  DatabaseUnavailable: define('LRS_ERR_DATABASE_UNAVAILABLE', 503, 'The database is unavailable; retry shortly'),
  QueryTimeout: define('LRS_ERR_QUERY_TIMEOUT', 504, 'The query ran longer than LRS_QUERY_TIMEOUT_MS: narrow it (agent, verb, activity, registration, a since/until range) or ask for a smaller limit'),
  ReportTimeout: define('LRS_ERR_REPORT_TIMEOUT', 503, 'The report ran longer than LRS_REPORT_TIMEOUT_MS: narrow it (a shorter since/until or from/to range, an activity, a verb, an agent or a registration) or ask again later')
}

// What stops a process from starting (its configuration, a damaged store):
// the message says what is wrong and what to do, so it is printed alone,
// without a stack, and the process exits with EXIT_STARTUP, which PM2 does
// not restart (ecosystem.config.js): restarting cannot mend it.
class StartupError extends Error {
  constructor (message, options) {
    super(message, options)
    this.name = 'StartupError'
  }
}
const EXIT_STARTUP = 78 // EX_CONFIG

// Under PM2 with wait_ready, a process that exits before saying 'ready' is
// waited for until listen_timeout and then counted online, so pm2-runtime
// never sees that nothing runs: the process says 'ready' on its way out.
function exitAfterStartFailure (code) {
  if (process.send && process.connected) process.send('ready', () => process.exit(code))
  else process.exit(code)
}

module.exports = { LrsError, errors, StartupError, EXIT_STARTUP, exitAfterStartFailure }
