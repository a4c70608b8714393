'use strict'

// GET /statements `format` (Communication 2.1.3): "exact" is the stored
// statement; "ids" keeps only identifiers of Agents, Groups, Activities and
// Verbs; "canonical" keeps one language per language map, chosen by
// Accept-Language (falling back to the first stored language).

const { mapContextActivities } = require('../../validation/context-activities')

function idsActor (actor) {
  if (!actor) return actor
  const out = {}
  if (actor.objectType) out.objectType = actor.objectType
  for (const k of ['mbox', 'mbox_sha1sum', 'openid', 'account']) if (actor[k] !== undefined) out[k] = actor[k]
  if (actor.objectType === 'Group' && Object.keys(out).length === 1 && Array.isArray(actor.member)) {
    out.member = actor.member.map(idsActor) // anonymous Group: members identify it
  }
  return out
}

function idsObject (object) {
  const type = object.objectType || 'Activity'
  if (type === 'Activity') return { id: object.id }
  if (type === 'Agent' || type === 'Group') return idsActor(object)
  if (type === 'SubStatement') return idsStatement(object)
  return object
}

function idsStatement (s) {
  const out = { ...s, actor: idsActor(s.actor), verb: { id: s.verb.id }, object: idsObject(s.object) }
  if (s.authority) out.authority = idsActor(s.authority)
  if (s.context) {
    const c = { ...s.context }
    if (c.instructor) c.instructor = idsActor(c.instructor)
    if (c.team) c.team = idsActor(c.team)
    if (c.contextActivities) c.contextActivities = mapContextActivities(c.contextActivities, (a) => ({ id: a.id }))
    if (c.contextAgents) c.contextAgents = c.contextAgents.map((x) => ({ ...x, agent: idsActor(x.agent) }))
    if (c.contextGroups) c.contextGroups = c.contextGroups.map((x) => ({ ...x, group: idsActor(x.group) }))
    out.context = c
  }
  return out
}

// Accept-Language: "en-GB,en;q=0.8" -> ['en-gb', 'en'] by quality.
function parseAcceptLanguage (header) {
  if (!header) return []
  return header.split(',').map((part, i) => {
    const [tag, ...params] = part.trim().split(';')
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return { tag: tag.trim().toLowerCase(), q: q ? Number(q.slice(2)) : 1, i }
  }).filter((l) => l.tag && l.q > 0).sort((a, b) => b.q - a.q || a.i - b.i).map((l) => l.tag)
}

function pickLanguage (map, preferred) {
  if (!map || typeof map !== 'object') return map
  const keys = Object.keys(map)
  if (keys.length <= 1) return map
  for (const want of preferred) {
    if (want === '*') break
    const exact = keys.find((k) => k.toLowerCase() === want)
    if (exact) return { [exact]: map[exact] }
    const prefix = keys.find((k) => k.toLowerCase().split('-')[0] === want.split('-')[0])
    if (prefix) return { [prefix]: map[prefix] }
  }
  return { [keys[0]]: map[keys[0]] }
}

function canonicalDefinition (def, langs) {
  if (!def) return def
  const out = { ...def }
  if (out.name) out.name = pickLanguage(out.name, langs)
  if (out.description) out.description = pickLanguage(out.description, langs)
  for (const list of ['choices', 'scale', 'source', 'target', 'steps']) {
    if (out[list]) out[list] = out[list].map((c) => (c.description ? { ...c, description: pickLanguage(c.description, langs) } : c))
  }
  return out
}

function canonicalActivity (a, langs) {
  return a.definition ? { ...a, definition: canonicalDefinition(a.definition, langs) } : a
}

function canonicalStatement (s, langs) {
  const out = { ...s }
  if (s.verb.display) out.verb = { ...s.verb, display: pickLanguage(s.verb.display, langs) }
  const type = s.object.objectType || 'Activity'
  if (type === 'Activity') out.object = canonicalActivity(s.object, langs)
  else if (type === 'SubStatement') out.object = canonicalStatement(s.object, langs)
  if (s.context && s.context.contextActivities) {
    out.context = { ...s.context, contextActivities: mapContextActivities(s.context.contextActivities, (a) => canonicalActivity(a, langs)) }
  }
  if (s.attachments) {
    out.attachments = s.attachments.map((a) => ({ ...a, display: pickLanguage(a.display, langs), ...(a.description && { description: pickLanguage(a.description, langs) }) }))
  }
  return out
}

function formatStatement (statement, format, acceptLanguage) {
  if (format === 'ids') return idsStatement(statement)
  if (format === 'canonical') return canonicalStatement(statement, parseAcceptLanguage(acceptLanguage))
  return statement
}

module.exports = { formatStatement }
