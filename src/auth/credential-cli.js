'use strict'

// Adds or updates a credential in the configured storage:
//   npm run credential -- KEY SECRET [SCOPE,SCOPE...]     (default scope: all)
// Workers pick it up on its first use (see credential-store.js).

const { loadConfig } = require('../config')
const { createToolLogger } = require('../logger')
const { openStorage } = require('../storage')
const { hashSecret } = require('./secrets')
const { KNOWN_SCOPES } = require('./scopes')

async function main ([key, secret, scopeList = 'all']) {
  if (!key || !secret || key.includes(':')) {
    process.stderr.write('usage: npm run credential -- KEY SECRET [SCOPE,...]  (KEY without ":")\n')
    return 2
  }
  const scopes = scopeList.split(',').map((s) => s.trim()).filter(Boolean)
  const unknown = scopes.filter((s) => !KNOWN_SCOPES.has(s))
  if (unknown.length) {
    process.stderr.write(`unknown scope(s): ${unknown.join(', ')}; known: ${[...KNOWN_SCOPES].join(', ')}\n`)
    return 2
  }
  const config = loadConfig()
  const storage = openStorage(config, createToolLogger({ ...config, logLevel: 'error' }))
  try {
    await storage.ready
    await storage.credentials.upsert({ key, secretHash: hashSecret(secret), scopes })
  } finally {
    await storage.close()
  }
  process.stdout.write(`credential "${key}" stored with scopes ${scopes.join(', ')}\n`)
  return 0
}

main(process.argv.slice(2)).then((code) => process.exit(code), (err) => {
  process.stderr.write(`could not store the credential: ${err.message}\n`)
  process.exit(1)
})
