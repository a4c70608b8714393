'use strict'

// Statement factories with overrides.
const crypto = require('node:crypto')

function statement (overrides = {}) {
  return {
    actor: { objectType: 'Agent', name: 'Learner', mbox: `mailto:learner-${crypto.randomUUID()}@example.com` },
    verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } },
    object: { objectType: 'Activity', id: `http://example.com/activities/${crypto.randomUUID()}`, definition: { name: { 'en-US': 'Lesson 1' } } },
    ...overrides
  }
}

module.exports = { statement }
