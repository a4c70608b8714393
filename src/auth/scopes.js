'use strict'

// xAPI 1.0.3 Communication 4.2 scope names, and which of them each kind of
// request needs. `all` and `all/read` cover every xAPI resource (read-only
// for the latter). `admin` and `metrics` are this LRS's own: the /admin
// API, which `all` does not include (xAPI's scopes are about xAPI
// resources), and GET /metrics, which `admin` includes: Prometheus needs a
// key that reads figures, not one that can create credentials and erase
// learners. A credential belongs to one store (src/stores/) and its
// scopes apply there; `stores/admin` manages the stores themselves and the
// credentials of any of them (the bootstrap credential has it).
const NEEDS = {
  'statements:read': ['all', 'all/read', 'statements/read', 'statements/read/mine'],
  'statements:write': ['all', 'statements/write'],
  'state:read': ['all', 'all/read', 'state'],
  'state:write': ['all', 'state'],
  'profile:read': ['all', 'all/read', 'profile'],
  'profile:write': ['all', 'profile'],
  'define:read': ['all', 'all/read', 'define', 'profile', 'statements/read'],
  admin: ['admin'],
  stores: ['stores/admin'],
  metrics: ['admin', 'metrics'],
  // figures of the store's statements (/admin/reports): `reports` alone
  // reads figures and not statements (a BI tool's key); whoever may read
  // statements may have figures of those it may read
  reports: ['admin', 'reports', 'all', 'all/read', 'statements/read', 'statements/read/mine']
}

const KNOWN_SCOPES = new Set(Object.values(NEEDS).flat())

function allows (scopes, need) {
  const accepted = Object.hasOwn(NEEDS, need) ? NEEDS[need] : []
  return scopes.some((s) => accepted.includes(s))
}

// The scopes that allow a kind of request (what /openapi.json lists).
function scopesAllowing (need) {
  if (!Object.hasOwn(NEEDS, need)) throw new Error(`unknown kind of request "${need}" (scopes.js NEEDS)`)
  return [...KNOWN_SCOPES].filter((s) => NEEDS[need].includes(s))
}

// Communication 4.2: `statements/read/mine` reads only the statements this
// credential stored (whose authority is this credential's).
function readsOnlyOwnStatements (scopes) {
  return !scopes.some((s) => s === 'all' || s === 'all/read' || s === 'statements/read')
}

// Whether `scopes` hold everything `scope` allows: so a token may be given
// `scope` by a credential with `scopes` (`all` covers `statements/write`,
// `admin` covers `metrics`, `statements/read` covers `statements/read/mine`,
// never the other way).
function covers (scopes, scope) {
  if (!KNOWN_SCOPES.has(scope)) return false
  if (!readsOnlyOwnStatements([scope]) && readsOnlyOwnStatements(scopes) && allows(scopes, 'statements:read')) return false
  return Object.keys(NEEDS).every((need) => !allows([scope], need) || allows(scopes, need))
}

// A report counts only the credential's own statements when it may read
// no others: statements/read/mine, and neither admin nor reports.
function reportsOnOwnStatements (scopes) {
  return readsOnlyOwnStatements(scopes) && !scopes.some((s) => s === 'admin' || s === 'reports')
}

module.exports = { reportsOnOwnStatements, allows, covers, scopesAllowing, readsOnlyOwnStatements, KNOWN_SCOPES }
