'use strict'

// A store's retention: its statements are kept `retentionDays` after they
// were stored (PUT /admin/stores/{id}; none: for good). Every
// LRS_RETENTION_INTERVAL_S, the LRS process that holds the `retention`
// lease removes, store by store, those stored longer ago than that, up to
// RUN_STATEMENTS a store and a run (the next run goes on), with what goes
// with them (delete-statements.js: a voided statement's voiding statements,
// a voiding statement's target). The log says what went, in counts.

const crypto = require('node:crypto')
const { deleteStatements } = require('../admin/delete-statements')
const { startRepeating } = require('../lib/repeating-job')

const RUN_STATEMENTS = 10000
const DAY_MS = 86400000

// `intervalMs`: how often; `now()`: tests only.
function startRetention ({ storage, logger, intervalMs, now = Date.now }) {
  const holder = crypto.randomUUID()

  async function run (stopped) {
    const stores = (await storage.stores.all()).filter((s) => s.retentionDays)
    if (!stores.length || !await storage.settings.takeLease('retention', holder, intervalMs * 2)) return
    for (const store of stores) {
      if (stopped()) return
      const until = new Date(now() - store.retentionDays * DAY_MS)
      const { removed, more } = await deleteStatements(storage, { since: null, until, store: store.number }, { limit: RUN_STATEMENTS })
      if (removed.statements) logger.info({ audit: 'retention', store: store.id, retentionDays: store.retentionDays, until: until.toISOString(), removed, more }, 'statements past their store\'s retention removed')
    }
  }

  return startRepeating({ ready: storage.ready, everyMs: intervalMs, run, logger, failure: 'applying the stores\' retention failed; the next run tries again' })
}

module.exports = { startRetention }
