'use strict'

// A store's upstream URLs (forwardUrls) as the database keeps them: the
// credentials inside a URL (https://user:password@host/xapi) sealed under
// LRS_SECRETS_KEY (sealed-secrets.js) as the URL's fragment, which an
// upstream URL cannot otherwise have:
//   https://host/xapi#sealed:v1:<key id>:...
// so a copy of the database does not give them away, and the URL without
// them (the upstream's id, what is shown) reads as before. Without a key
// they are kept as given (a warning at start says so); a URL written by
// an older LRS reads as it always did.

const { SEALED_PREFIX } = require('../auth/sealed-secrets')

const SEALED = '#' + SEALED_PREFIX

// The URL to store for `raw` (as a client gave it).
function sealUpstreamUrl (raw, sealed) {
  if (!sealed.available) return raw
  const url = new URL(raw)
  if (!url.username) return raw
  const userinfo = `${url.username}:${url.password}` // percent-encoded, as given
  url.username = ''
  url.password = ''
  return `${url.toString()}#${sealed.seal(userinfo)}`
}

// The URL as given, from what is stored (throws where its key is not held).
function openUpstreamUrl (stored, sealed) {
  const at = stored.indexOf(SEALED)
  if (at === -1) return stored
  const url = new URL(stored.slice(0, at))
  const [username, ...password] = sealed.open(stored.slice(at + 1)).split(':')
  url.username = username
  url.password = password.join(':')
  return url.toString()
}

const isSealedUrl = (stored) => stored.includes(SEALED)
// credentials kept in plain text
const hasPlainCredentials = (stored) => !isSealedUrl(stored) && new URL(stored).username !== ''

module.exports = { sealUpstreamUrl, openUpstreamUrl, isSealedUrl, hasPlainCredentials }
