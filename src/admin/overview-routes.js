'use strict'

// GET /admin/overview?since=&until=: what the console's Overview shows,
// counted by the store (statements.aggregate): statements stored, per hour
// of the range, top verbs and object activities, and per credential.
// SQLite answers from hourly counters the writer keeps, so the range is
// in whole hours and the answer does not grow with the store. Each top
// verb's display comes from the newest statement with that verb: one
// indexed lookup of one statement per top verb (TOP at most), not a read
// of the statements in the range.

const { errors } = require('../errors')
const { parameter: p } = require('../validation/query-parameters')
const { toUtcTimestamp } = require('../validation/formats')
const { json, schema, response } = require('../http/openapi-parts')
const { authorityFor } = require('../auth/authenticate')
const { agentKey } = require('../resources/agents/agent-keys')
const { storageQueryFields } = require('../stores/store-keys')
const { statementQuery } = require('../storage/statement-query')

const HOUR_MS = 3600000
const DEFAULT_RANGE_MS = 24 * HOUR_MS
const MAX_RANGE_MS = 7 * 24 * HOUR_MS
const TOP = 10

// A verb's display as stored (a language map, validated when the
// statement was written), its string entries only; null when it has none.
// Whatever its sender wrote: hostile text, for the console to show as text.
function displayOf (verb) {
  const display = verb && verb.display
  if (!display || typeof display !== 'object' || Array.isArray(display)) return null
  const entries = Object.entries(display).filter(([, text]) => typeof text === 'string')
  return entries.length ? Object.fromEntries(entries) : null
}

function overviewRoutes ({ config, storage }) {
  const asMs = (value) => Date.parse(toUtcTimestamp(value))

  // The top verbs, each with the display of the newest statement (not
  // voided) that has it, in parallel (the engines' verb index, newest
  // first, limit 1).
  function withDisplays (verbs, store) {
    const deadline = Date.now() + config.queryTimeoutMs
    return Promise.all(verbs.map(async ({ verb, count }) => {
      const [row] = await storage.statements.query(statementQuery(storageQueryFields({ verb, limit: 1 }, store)), { deadline })
      const newest = row && JSON.parse(row.body).verb
      return { verb, count, display: newest && newest.id === verb ? displayOf(newest) : null }
    }))
  }

  return [{
    method: 'get',
    path: '/overview',
    operationId: 'getOverview',
    summary: 'Statements stored, per hour, by verb, activity and credential',
    description: 'Counts of the statements stored (voided ones included) in the hours from the one `since` falls in to the one `until` falls in: ' +
      `per hour, the top ${TOP} verbs (each with the display of the newest statement that has it) and object activities, and per credential (its key; \`null\` for an authority no credential has, such as imported statements' or a revoked credential's), ` +
      'and the statements stored in all. At most 7 days; by default the last 24 hours.',
    query: {
      since: { schema: p.timestamp, description: 'Start of the range (its hour is counted whole); by default 24 hours before `until`.' },
      until: { schema: p.timestamp, description: 'End of the range (its hour is counted whole); by default now.' }
    },
    errors: [errors.InvalidParameter],
    responses: { 200: response('The counts.', { content: json(schema('Overview')) }) },
    async handler (req, res, { query }) {
      const until = query.until === undefined ? Date.now() : asMs(query.until)
      const since = query.since === undefined ? until - DEFAULT_RANGE_MS : asMs(query.since)
      if (!(since < until)) throw errors.InvalidParameter('since must be before until')
      if (until - since > MAX_RANGE_MS) throw errors.InvalidParameter('the range is at most 7 days')
      // the credential's store's counts, and its credentials
      const store = req.credential.store || 0
      const credentials = (await storage.credentials.all()).filter((c) => (c.store || 0) === store)
      const keyOf = new Map(credentials.map((c) => [agentKey(authorityFor(c, config)), c.key]))
      const counts = await storage.statements.aggregate({ since: new Date(since), until: new Date(until), authorityKeys: [...keyOf.keys()], top: TOP, store })
      const perCredential = new Map()
      for (const { authorityKey, count } of counts.authorities) {
        const key = keyOf.get(authorityKey) ?? null
        perCredential.set(key, (perCredential.get(key) || 0) + count)
      }
      res.json({
        since: new Date(since).toISOString(),
        until: new Date(until).toISOString(),
        total: counts.total,
        hours: counts.hours.map((h) => ({ start: h.start.toISOString(), count: h.count })),
        verbs: await withDisplays(counts.verbs, store),
        activities: counts.activities,
        credentials: [...perCredential].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count)
      })
    }
  }]
}

module.exports = { overviewRoutes }
