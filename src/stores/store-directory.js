'use strict'

// The stores by id and by number, read from storage when asked (the admin
// API asks rarely; a worker keeps nothing that could go stale).

const { errors } = require('../errors')
const { parseUpstream } = require('../forwarding/upstreams')

// A store's id: how the API names it, for good.
const STORE_ID = '^[a-z0-9][a-z0-9-]{0,62}$'

function storeDirectory (storage) {
  async function describeAll (stores) {
    const perStore = new Map()
    for (const c of await storage.credentials.all()) perStore.set(c.store || 0, (perStore.get(c.store || 0) || 0) + 1)
    return Promise.all(stores.map(async ({ number, id, name, createdAt, retentionDays = null, forwardUrls = [] }) => {
      const [statements, holdings] = await Promise.all([storage.statements.count({ store: number }), storage.stores.holdings(number)])
      return {
        id,
        name,
        createdAt: createdAt ? new Date(createdAt).toISOString() : null,
        retentionDays: retentionDays || null,
        forwardTo: forwardUrls.map((u) => parseUpstream(u).shown), // never their credentials
        statements,
        ...holdings,
        credentials: perStore.get(number) || 0
      }
    }))
  }
  return {
    all: () => storage.stores.all(),
    // The store with this id, or 404.
    async byId (id) {
      const store = (await storage.stores.all()).find((s) => s.id === id)
      if (!store) throw errors.NotFound(`no store "${id}"`)
      return store
    },
    // number -> id, for listings
    async ids () {
      return new Map((await storage.stores.all()).map((s) => [s.number, s.id]))
    },
    // A store as the admin API and `lrs store list` show it: what it
    // holds (also what its deletion would remove).
    async describe (store) {
      return (await describeAll([store]))[0]
    },
    // Every store of `stores` so (the credentials read once for all).
    describeAll,
    // Deleted stores whose data is still being purged.
    async deleting () {
      return Promise.all((await storage.stores.deleting()).map(async ({ number, id, name, deletedAt }) =>
        ({ id, name, deletedAt: new Date(deletedAt).toISOString(), statementsLeft: await storage.statements.count({ store: number }) })))
    }
  }
}

module.exports = { storeDirectory, STORE_ID }
