'use strict'

// A string key per inverse functional identifier, so Agents and identified
// Groups compare by IFI (Communication 2.1.3: "equal when the same IFI is used").
function agentKey (actor) {
  if (!actor) return null
  if (actor.mbox !== undefined) return 'mbox:' + actor.mbox.toLowerCase()
  if (actor.mbox_sha1sum !== undefined) return 'sha1:' + actor.mbox_sha1sum.toLowerCase()
  if (actor.openid !== undefined) return 'openid:' + actor.openid
  if (actor.account) return 'account:' + actor.account.homePage + '|' + actor.account.name
  return null
}

// The key of a statement's authority, which every statement has: an
// Agent's key, or for the anonymous two-member Group of an OAuth authority
// (Data 2.4.9: the application and the user) one made of its members'
// keys. (No credential of this LRS has such an authority, so
// statements/read/mine never matches it; related_agents finds its members
// as it finds any Group's.)
function authorityKey (authority) {
  const key = agentKey(authority)
  if (key !== null || !authority || !Array.isArray(authority.member)) return key
  return 'group:' + authority.member.map(agentKey).sort().join(' ')
}

// The actor's own key and, for a Group, its members' keys.
function actorKeys (actor, into) {
  if (!actor) return into
  const key = agentKey(actor)
  if (key) into.add(key)
  if (Array.isArray(actor.member)) for (const m of actor.member) actorKeys(m, into)
  return into
}

module.exports = { agentKey, authorityKey, actorKeys }
