'use strict'

// Shared settings that are secrets of the LRS's own (its token-signing
// keys, the key that seals `more` cursors and feed event ids), kept sealed
// under LRS_SECRETS_KEY (sealed-secrets.js) when one is set, so a copy of
// the database cannot sign tokens or forge cursors. A value written
// without a key, or by an older LRS, reads as it is, and `lrs secrets
// reseal` seals it.

const { isSealed } = require('./sealed-secrets')

// The names of the settings kept this way (whole names, or prefixes ending in ':').
const SECRET_SETTINGS = ['more-cursor-key', 'token-signing-key:']

// `settings` (the storage's) with getOrCreate sealing what it creates and
// opening what it reads (throws where the key that sealed it is not held).
function sealedSettings (settings, sealed) {
  return {
    async getOrCreate (name, value) {
      const stored = await settings.getOrCreate(name, sealed.available ? sealed.seal(value) : value)
      return isSealed(stored) ? sealed.open(stored) : stored
    }
  }
}

module.exports = { sealedSettings, SECRET_SETTINGS }
