'use strict'

// Deleting a store's statements by when they were stored: an admin's
// delete by range (DELETE /admin/statements, lrs delete-statements) and a
// store's retention (retention.js). The statements stored after `since`
// and at or before `until` go, with what must go with them: a voided
// statement's voiding statements, and a voiding statement's target, wherever
// they were stored (a voiding statement kept without its target would void
// nothing, and a voided statement kept without its voiding statement would
// come back). Other StatementRefs to a deleted statement are kept, as an
// agent erasure keeps them. Attachments no remaining statement uses and
// the statements' forwarding entries go too (statements.erase).

const { qualify } = require('../stores/store-keys')

const PAGE = 500
const VOIDED = 'http://adlnet.gov/expapi/verbs/voided'

function voidedTarget (body) {
  const statement = JSON.parse(body)
  return statement.verb && statement.verb.id === VOIDED && statement.object && statement.object.objectType === 'StatementRef' ? statement.object.id : null
}

// The ids (as storage keeps them) of the statements in the range, a page
// at a time, each page with the statements that go with them.
async function * pages (storage, { since, until, store, limit = Infinity }) {
  let after = null
  let taken = 0
  while (taken < limit) {
    const rows = await storage.statements.scan({ since, until, after, limit: Math.min(PAGE, limit - taken), store })
    if (!rows.length) return
    after = rows[rows.length - 1].position
    taken += rows.length
    const ids = rows.map((r) => r.id)
    const withThem = new Set()
    for (const r of rows) {
      const target = voidedTarget(r.body)
      if (target) withThem.add(qualify(store, target.toLowerCase()))
    }
    const referencing = await storage.statements.findIdsReferencing(ids, { limit: PAGE * 10 })
    if (referencing.length) {
      for (const [id, row] of await storage.statements.findBodies(referencing)) if (voidedTarget(row.body)) withThem.add(id)
    }
    for (const id of ids) withThem.delete(id)
    yield { ids, withThem: [...withThem] }
  }
}

// `range`: { since, until (Dates or null), store (its number) }; `limit`:
// statements of the range at most (a retention slice). Returns counts.
async function deleteStatements (storage, range, { limit } = {}) {
  const removed = { statements: 0, attachments: 0, forwardingEntries: 0 }
  let more = false
  for await (const page of pages(storage, { ...range, limit })) {
    const counts = await storage.statements.erase([...page.ids, ...page.withThem])
    removed.statements += counts.statements
    removed.attachments += counts.attachments
    removed.forwardingEntries += counts.forwardingEntries
    more = page.ids.length === PAGE
  }
  return { removed, more }
}

// What deleteStatements would remove, removing nothing: the statements in
// the range, and those outside it that would go with them.
async function previewDeletion (storage, range) {
  let statements = 0
  const outside = new Set()
  for await (const page of pages(storage, range)) {
    statements += page.ids.length
    if (!page.withThem.length) continue
    const found = await storage.statements.findBodies(page.withThem)
    for (const [id, row] of found) if (!inRange(row.stored, range)) outside.add(id)
  }
  return { wouldRemove: { statements: statements + outside.size, outsideTheRange: outside.size } }
}

function inRange (stored, { since, until }) {
  const at = new Date(stored).getTime()
  return (!since || at > since.getTime()) && (!until || at <= until.getTime())
}

module.exports = { deleteStatements, previewDeletion }
