'use strict'

// Verifies HTTP Basic credentials without a database read per request:
// credentials are held in memory, and a successful scrypt verification is
// remembered by a SHA-256 of the header, so scrypt runs once per credential
// per worker, not once per request. The credentials collection is re-read
// every few minutes, and sooner (at most once a second) when a request
// names an unknown key, so that during steady ingest with known credentials
// the database sees no reads at all.

const crypto = require('node:crypto')
const { hashSecret, verifySecret } = require('./secrets')
const { credentialsRepository } = require('../storage/credentials-repository')

const REFRESH_MS = 5 * 60 * 1000
const MISS_REFRESH_MIN_MS = 1000
const MAX_VERIFIED = 10000

function createCredentialStore ({ config, database, logger }) {
  const repo = credentialsRepository(database.db)
  const byKey = new Map()
  const verified = new Map() // sha256(header) -> credential
  let timer = null
  let lastRefresh = 0

  if (config.adminUser) {
    byKey.set(config.adminUser, { key: config.adminUser, secretHash: hashSecret(config.adminPassword), scopes: ['all'] })
  }

  async function bootstrap () {
    if (config.adminUser) await repo.upsert(byKey.get(config.adminUser))
  }

  async function refresh () {
    lastRefresh = Date.now()
    const rows = await repo.all({ maxTimeMS: config.queryTimeoutMs })
    const seen = new Set()
    for (const row of rows) {
      seen.add(row._id)
      const current = byKey.get(row._id)
      if (!current || current.secretHash !== row.secretHash || String(current.scopes) !== String(row.scopes)) {
        byKey.set(row._id, { key: row._id, secretHash: row.secretHash, scopes: row.scopes || [] })
        verified.clear()
      }
    }
    for (const key of byKey.keys()) {
      if (!seen.has(key) && key !== config.adminUser) { byKey.delete(key); verified.clear() }
    }
  }

  async function start () {
    await database.ready
    try {
      await bootstrap()
      await refresh()
    } catch (err) {
      logger.warn({ err: err.message }, 'credential refresh failed')
    }
    timer = setInterval(() => refresh().catch((err) => logger.warn({ err: err.message }, 'credential refresh failed')), REFRESH_MS)
    timer.unref()
  }

  // Returns the credential for an Authorization header value, or null.
  function authenticate (header) {
    if (typeof header !== 'string' || !/^basic /i.test(header)) return null
    const digest = crypto.createHash('sha256').update(header).digest('base64')
    const hit = verified.get(digest)
    if (hit) return hit
    const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    if (colon < 0) return null
    const credential = byKey.get(decoded.slice(0, colon))
    if (!credential) {
      if (Date.now() - lastRefresh > MISS_REFRESH_MIN_MS) refresh().catch((err) => logger.warn({ err: err.message }, 'credential refresh failed'))
      return null
    }
    if (!verifySecret(decoded.slice(colon + 1), credential.secretHash)) return null
    if (verified.size >= MAX_VERIFIED) verified.clear()
    verified.set(digest, credential)
    return credential
  }

  return { start, authenticate, stop: () => clearInterval(timer) }
}

module.exports = { createCredentialStore }
