'use strict'

// A string key per inverse functional identifier, so Agents and identified
// Groups compare by IFI (Communication 2.1.3: "equal when the same IFI is used").
function agentKey (actor) {
  if (!actor) return null
  if (actor.mbox !== undefined) return 'mbox:' + (mboxCase === 'whole' ? actor.mbox.toLowerCase() : canonicalMbox(actor.mbox))
  if (actor.mbox_sha1sum !== undefined) return 'sha1:' + actor.mbox_sha1sum.toLowerCase()
  if (actor.openid !== undefined) return 'openid:' + actor.openid
  if (actor.account) return 'account:' + actor.account.homePage + '|' + actor.account.name
  return null
}

// An mbox as compared: the domain of the address in any case (Data
// 2.4.2.3.s4.b1), the local part as sent (2.2.s4.b5: values are
// case-sensitive unless the spec says otherwise), so mailto:Ann@Example.org
// and mailto:ann@example.org are two learners. (The scheme is `mailto:`
// in lower case: validation refuses any other.)
function canonicalMbox (mbox) {
  const at = mbox.lastIndexOf('@')
  return at < 0 ? mbox : mbox.slice(0, at) + mbox.slice(at).toLowerCase()
}

// How this store keys mboxes: 'domain' (canonicalMbox), or 'whole' for a
// store written before schema 14 (2026-12), whose index and documents hold
// keys of the whole address in lower case; the engine records which when
// it makes or upgrades a store (docs/operations.md), and whoever opens the
// storage sets it here before any key is made (server.js, cli/common.js).
// Never changed for a store once chosen: its keys were made with it.
let mboxCase = 'domain'
function useMboxCase (mode) {
  if (mode !== 'domain' && mode !== 'whole') throw new Error(`unknown mbox case rule ${JSON.stringify(mode)}`)
  mboxCase = mode
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

module.exports = { agentKey, authorityKey, actorKeys, canonicalMbox, useMboxCase }
