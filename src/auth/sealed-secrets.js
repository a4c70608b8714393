'use strict'

// Secrets the LRS must send on (a forwarder's password, token or webhook
// signing secret) are kept in the database sealed: AES-256-GCM under
// LRS_SECRETS_KEY, which only the operator holds, so a copy of the database
// (a backup, a dump, a read-only credential to it) does not give them away.
//
// A sealed value: "sealed:v1:<key id>:<iv>:<tag>:<ciphertext>" (base64url
// parts; the key id is the first 8 hex digits of the key's SHA-256), so a
// value names the key it needs. Rotation: the new key in LRS_SECRETS_KEY,
// the old one in LRS_SECRETS_OLD_KEYS until every value was sealed again
// (each value is sealed with the current key whenever it is written;
// docs/forwarders.md).

const crypto = require('node:crypto')

const PREFIX = 'sealed:v1:'

// A key as the operator gives it: 32 bytes, as 64 hex digits or base64.
function parseKey (text) {
  const value = String(text).trim()
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex')
  const bytes = Buffer.from(value, 'base64')
  if (bytes.length === 32 && /^[A-Za-z0-9+/_-]+=*$/.test(value)) return bytes
  return null
}

const keyId = (key) => crypto.createHash('sha256').update(key).digest('hex').slice(0, 8)

// Why `text` cannot be a key, or null (config.js).
function keyProblem (text) {
  return parseKey(text) ? null : 'must be 32 bytes, as 64 hex digits or base64 (openssl rand -base64 32)'
}

// `current`: LRS_SECRETS_KEY ('' for none); `old`: LRS_SECRETS_OLD_KEYS
// (comma-separated).
function sealedSecrets ({ current, old = '' }) {
  const key = current ? parseKey(current) : null
  const keys = new Map()
  for (const k of [key, ...String(old).split(',').map((v) => v.trim()).filter(Boolean).map(parseKey)]) if (k) keys.set(keyId(k), k)
  return {
    // Whether secrets can be kept at all (a key is set).
    get available () { return key !== null },
    seal (plain) {
      if (!key) throw new Error('LRS_SECRETS_KEY is not set')
      const iv = crypto.randomBytes(12)
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv)
      const ciphertext = Buffer.concat([cipher.update(String(plain), 'utf8'), cipher.final()])
      return PREFIX + [keyId(key), iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':')
    },
    // The secret, or throws (a key no longer known, a damaged value).
    open (sealed) {
      if (!isSealed(sealed)) throw new Error('not a sealed secret')
      const [id, iv, tag, ciphertext] = sealed.slice(PREFIX.length).split(':')
      const k = keys.get(id)
      if (!k) throw new Error(`the secret was sealed with key ${id}, which neither LRS_SECRETS_KEY nor LRS_SECRETS_OLD_KEYS holds`)
      const decipher = crypto.createDecipheriv('aes-256-gcm', k, Buffer.from(iv, 'base64url'))
      decipher.setAuthTag(Buffer.from(tag, 'base64url'))
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8')
    },
    // Whether a sealed value was sealed with the current key.
    current: (sealed) => key !== null && String(sealed).startsWith(PREFIX + keyId(key) + ':')
  }
}

// Whether `value` is a sealed secret (else: kept as it was given).
const isSealed = (value) => String(value).startsWith(PREFIX)

module.exports = { sealedSecrets, keyProblem, parseKey, isSealed, SEALED_PREFIX: PREFIX }
