// What people type for an agent, as the JSON Agent the xAPI wants: an
// e-mail address or a mailto: IRI becomes an mbox; JSON is taken as is.

export function agentParam (typed) {
  const s = typed.trim()
  if (s.startsWith('{')) return s
  if (s.startsWith('mailto:')) return JSON.stringify({ mbox: s })
  if (/^[^\s@]+@[^\s@]+$/.test(s)) return JSON.stringify({ mbox: 'mailto:' + s })
  throw new Error('An agent is an e-mail address, a mailto: IRI or Agent JSON such as {"account":{"homePage":"…","name":"…"}}')
}

// The agent's identifier, which a person types to confirm an erasure.
export function agentIdentifier (agentJson) {
  const a = JSON.parse(agentJson)
  return a.mbox || a.mbox_sha1sum || a.openid || (a.account && a.account.name) || ''
}
