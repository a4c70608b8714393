'use strict'

// Whether a statement the tail handed out (statement-tail.js) is one a
// feed sends: GET /statements' filters (Communication 2.1.3) on the values
// the write path filters on (query-fields.js), what the credential may
// read (statements/read/mine: its own), and a statement that targets one
// that matches through StatementRefs matches too (2.1.3.s3), as the
// store's queries answer.

// `query`: GET /statements' parsed (agent as its key); `authorityKey`: the
// credential's when it reads only its own statements.
function feedFilter (query, { authorityKey = null } = {}) {
  const tests = []
  if (query.agent) {
    const field = query.relatedAgents ? 'relAgents' : 'agents'
    tests.push((f) => f[field].includes(query.agent))
  }
  if (query.verb) tests.push((f) => f.verb === query.verb)
  if (query.activity) {
    const field = query.relatedActivities ? 'relActivities' : 'activities'
    tests.push((f) => f[field].includes(query.activity))
  }
  if (query.registration) tests.push((f) => f.registration === query.registration)
  const fieldsMatch = (f) => tests.every((test) => test(f))

  return async function matches (item) {
    if (authorityKey && item.authorityKey !== authorityKey) return false
    if (fieldsMatch(item.fields)) return true
    if (!tests.length || item.statement.object.objectType !== 'StatementRef') return false
    return (await item.targets()).some(fieldsMatch)
  }
}

module.exports = { feedFilter }
