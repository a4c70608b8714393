'use strict'

const crypto = require('node:crypto')
const { promisify } = require('node:util')

// Secrets are stored as scrypt hashes: "scrypt$<salt b64>$<hash b64>".
// Verification runs on libuv's thread pool (about 60 ms of CPU each on our
// machines), never on the event loop.
const KEYLEN = 32
const scrypt = promisify(crypto.scrypt)

const encode = (salt, hash) => `scrypt$${salt.toString('base64')}$${hash.toString('base64')}`

function hashSecret (secret) {
  const salt = crypto.randomBytes(16)
  return encode(salt, crypto.scryptSync(secret, salt, KEYLEN))
}

// The same on the thread pool, for requests (the admin API).
async function hashSecretAsync (secret) {
  const salt = crypto.randomBytes(16)
  return encode(salt, await scrypt(secret, salt, KEYLEN))
}

async function verifySecret (secret, stored) {
  const [scheme, salt, hash] = String(stored).split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const actual = await scrypt(secret, Buffer.from(salt, 'base64'), expected.length)
  return crypto.timingSafeEqual(actual, expected)
}

module.exports = { hashSecret, hashSecretAsync, verifySecret }
