'use strict'

const crypto = require('node:crypto')

// Secrets are stored as scrypt hashes: "scrypt$<salt b64>$<hash b64>".
const KEYLEN = 32

function hashSecret (secret) {
  const salt = crypto.randomBytes(16)
  const hash = crypto.scryptSync(secret, salt, KEYLEN)
  return `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`
}

function verifySecret (secret, stored) {
  const [scheme, salt, hash] = String(stored).split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const actual = crypto.scryptSync(secret, Buffer.from(salt, 'base64'), expected.length)
  return crypto.timingSafeEqual(actual, expected)
}

module.exports = { hashSecret, verifySecret }
