'use strict'

// Standard Webhooks (https://www.standardwebhooks.com, spec v1): a delivery
// carries webhook-id, webhook-timestamp (seconds) and webhook-signature,
// "v1,<base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`>" under the
// secret's bytes (a secret is "whsec_" + base64). Several signatures are
// separated by spaces: one per secret while a secret is being rotated, so a
// receiver holding either verifies the delivery.

const crypto = require('node:crypto')

const SECRET_PREFIX = 'whsec_'

function newWebhookSecret () {
  return SECRET_PREFIX + crypto.randomBytes(32).toString('base64')
}

// Why `secret` cannot sign, or null.
function webhookSecretProblem (secret) {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) return 'must start with whsec_'
  const bytes = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
  if (bytes.length < 24 || bytes.length > 64) return 'must hold 24 to 64 bytes, base64 after whsec_'
  return null
}

function signature (secret, id, timestamp, body) {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64')
  return 'v1,' + crypto.createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')
}

// The three headers for `body` (a string or Buffer) under `secrets`.
function webhookHeaders ({ id, secrets, body, now = Date.now() }) {
  const timestamp = Math.floor(now / 1000)
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signature(s, id, timestamp, body)).join(' ')
  }
}

module.exports = { webhookHeaders, newWebhookSecret, webhookSecretProblem }
