'use strict'

// Statement factories with overrides, and reading every page of a query.
const assert = require('node:assert/strict')
const crypto = require('node:crypto')

function statement (overrides = {}) {
  return {
    actor: { objectType: 'Agent', name: 'Learner', mbox: `mailto:learner-${crypto.randomUUID()}@example.com` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
    object: { objectType: 'Activity', id: `http://example.com/activities/${crypto.randomUUID()}`, definition: { name: { 'en-US': 'Lesson 1' } } },
    ...overrides
  }
}

// The ids of every statement GET /statements?<query> returns, following
// `more` through pages of 7 (small, so that a walk crosses pages).
async function allIds (lrs, query) {
  const ids = []
  let url = `/statements?limit=7&${query}`
  while (url) {
    const page = await lrs.client(url)
    assert.equal(page.status, 200, page.text)
    ids.push(...page.json.statements.map((s) => s.id))
    url = page.json.more ? page.json.more.replace(/^\/xapi/, '') : null
  }
  return ids
}

module.exports = { statement, allIds }
