'use strict'

// What a credential's key and secret may be, the same from the admin API
// and from `lrs credential`: a key fits in a URL path and holds no ":"
// (Basic auth splits there); a secret is long enough not to be guessed and
// has no control characters.
const KEY_PATTERN = '^[A-Za-z0-9._~-]{1,128}$'
const SECRET_MIN_LENGTH = 16
const SECRET_MAX_LENGTH = 256
const SECRET_PATTERN = '^[^\\u0000-\\u001f]*$'

module.exports = { KEY_PATTERN, SECRET_MIN_LENGTH, SECRET_MAX_LENGTH, SECRET_PATTERN }
