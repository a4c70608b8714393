'use strict'

// lrs secrets reseal: every secret the database keeps sealed under
// LRS_SECRETS_KEY, sealed again under the current key — forwarders'
// secrets, stores' upstream credentials (forwardUrls), the LRS's own
// token-signing keys and cursor key — and those still in plain text
// (written before a key was set, or by an older LRS) sealed. The second
// step of a rotation (docs/forwarders.md): the new key in LRS_SECRETS_KEY,
// the old one in LRS_SECRETS_OLD_KEYS, `lrs secrets reseal`, then the old
// key dropped. Safe while the LRS runs: each value is replaced only if it
// is still what was read (a change made meanwhile is left to be resealed
// by running it again), and a running worker opens either key.

const { action, configOf, withStorage } = require('./common')
const { auditLogger } = require('./audit')
const { sealedSecrets, isSealed } = require('../auth/sealed-secrets')
const { SECRET_SETTINGS } = require('../auth/sealed-settings')
const { sealUpstreamUrl, openUpstreamUrl, isSealedUrl, hasPlainCredentials } = require('../forwarding/sealed-urls')

// `value` with every sealed string in it sealed under the current key;
// `counts.resealed` counts those that were not.
function resealDeep (value, sealed, counts) {
  if (typeof value === 'string') {
    if (!isSealed(value) || sealed.current(value)) return value
    counts.resealed++
    return sealed.seal(sealed.open(value))
  }
  if (Array.isArray(value)) return value.map((v) => resealDeep(v, sealed, counts))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resealDeep(v, sealed, counts)]))
  return value
}

async function reseal (io, { dryRun }) {
  const config = configOf(io)
  if (!config.secretsKey) throw new Error('LRS_SECRETS_KEY is not set: nothing can be sealed without it')
  const sealed = sealedSecrets({ current: config.secretsKey, old: config.secretsOldKeys })
  const done = { settings: 0, storeUpstreams: 0, forwarders: 0, changedMeanwhile: 0 }
  await withStorage(config, async (storage) => {
    for (const { name, value } of await storage.settings.named(SECRET_SETTINGS)) {
      if (isSealed(value) && sealed.current(value)) continue
      const plain = isSealed(value) ? sealed.open(value) : value
      if (dryRun) done.settings++
      else if (await storage.settings.replace(name, value, sealed.seal(plain))) done.settings++
      else done.changedMeanwhile++
    }
    for (const store of await storage.stores.all()) {
      const urls = store.forwardUrls || []
      const stale = urls.filter((u) => hasPlainCredentials(u) || (isSealedUrl(u) && !sealed.current(u.slice(u.indexOf('#') + 1))))
      if (!stale.length) continue
      done.storeUpstreams += stale.length
      if (dryRun) continue
      const next = urls.map((u) => stale.includes(u) ? sealUpstreamUrl(openUpstreamUrl(u, sealed), sealed) : u)
      await storage.stores.setForwarding({ id: store.id, urls: next, dropUpstreams: [] })
    }
    for (const f of await storage.forwarders.all()) {
      const counts = { resealed: 0 }
      const definition = resealDeep(f.definition, sealed, counts)
      if (!counts.resealed) continue
      if (dryRun) { done.forwarders++; continue }
      const outcome = await storage.forwarders.replace({ id: f.id, store: f.store, revision: f.revision, definition })
      if (outcome === 'changed') done.forwarders++
      else done.changedMeanwhile++
    }
  })
  if (!dryRun) auditLogger(config).info({ audit: 'secrets-reseal', ...done }, 'secrets sealed again under LRS_SECRETS_KEY')
  const verb = dryRun ? 'would seal again' : 'sealed again'
  io.stdout.write(`${verb} under the current LRS_SECRETS_KEY: ${done.settings} of the LRS's own keys, ${done.storeUpstreams} store upstream URLs, ${done.forwarders} forwarders` +
    (done.changedMeanwhile ? `; ${done.changedMeanwhile} changed while this ran: run it again` : '') + '\n')
  return done.changedMeanwhile ? 1 : 0
}

function register (program, io) {
  const secrets = program.command('secrets')
    .summary('the secrets the database keeps sealed under LRS_SECRETS_KEY')
    .description('The secrets the database keeps sealed under LRS_SECRETS_KEY: forwarders\' secrets, stores\' upstream credentials, the LRS\'s own token-signing and cursor keys.')
  secrets.command('reseal')
    .summary('seal every secret again under the current key')
    .description('Seal every secret kept in the database under the current LRS_SECRETS_KEY: those sealed under a key now in LRS_SECRETS_OLD_KEYS, and those still in plain text (written before a key was set). The second step of a key rotation; safe while the LRS runs. Exit code 1 if a value changed while it ran (run it again).')
    .option('--dry-run', 'say what would be sealed again, change nothing')
    .addHelpText('after', `
Examples:
  $ LRS_SECRETS_KEY=<new> LRS_SECRETS_OLD_KEYS=<old> lrs secrets reseal
  $ lrs secrets reseal --dry-run`)
    .action(action((options) => reseal(io, options)))
  return secrets
}

module.exports = { register }
