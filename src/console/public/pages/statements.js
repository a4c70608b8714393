// Statements: the xAPI filters of GET /xapi/statements, newest first, paged
// with `more`; a statement's JSON in full, voided ones marked, attachments
// listed. The query is in the page's address (#/statements?verb=…): a link
// to share. Everything from a statement is shown as text.

import { api, signedInKey } from '../api.js'
import { el, show, field, table, errorText, formValues, clip, jsonText } from '../dom.js'
import { agentParam } from '../agent.js'
import { languageText as text } from '../language.js'

const FILTERS = ['agent', 'verb', 'activity', 'registration', 'since', 'until']
const FLAGS = ['related_agents', 'related_activities']
const VOIDED = 'http://adlnet.gov/expapi/verbs/voided'

function actorText (a) {
  if (!a) return ''
  const id = a.mbox || a.mbox_sha1sum || a.openid || (a.account && `${a.account.name} (${a.account.homePage})`) || ''
  return a.name ? `${a.name} <${id}>` : id || (a.member ? `group of ${a.member.length}` : '')
}

function objectText (o) {
  if (!o) return ''
  if (o.objectType === 'StatementRef') return `statement ${o.id}`
  if (o.objectType === 'Agent' || o.objectType === 'Group') return actorText(o)
  if (o.objectType === 'SubStatement') return 'a sub-statement'
  const name = text(o.definition && o.definition.name)
  return name ? `${name} (${o.id})` : o.id
}

// Statements are read through the xAPI, whose scopes are not the
// console's: a credential with `admin` alone signs in, but GET
// /xapi/statements answers it 403. The page says which scope it lacks
// (with the LRS's own words) instead of a bare error; the console never
// reads statements another way.
function failure (err) {
  if (err.status !== 403) return errorText(err)
  const key = el('code', {}, signedInKey())
  return el('div', { class: 'card refused', role: 'alert' },
    el('h2', {}, 'This credential cannot read statements'),
    el('p', {}, 'Reading statements is an xAPI request: it needs a scope that reads statements, such as ', el('code', {}, 'statements/read'), '. The LRS refused ', key, ': ',
      err.detail || err.message, '.'),
    el('p', {}, 'The ', el('code', {}, 'admin'), ' scope opens the console\'s other pages only. Add ', el('code', {}, 'statements/read'), ' to ', el('code', {}, signedInKey()),
      ' on the ', el('a', { href: '#/credentials' }, 'Credentials'), ' page, or sign in with a credential that has both ', el('code', {}, 'admin'), ' and ', el('code', {}, 'statements/read'), '.'))
}

// The xAPI query from the page's parameters (the address or the form).
function xapiQuery (params) {
  const q = {}
  for (const name of FILTERS) {
    const v = (params.get(name) || '').trim()
    if (v) q[name] = name === 'agent' ? agentParam(v) : v
  }
  for (const name of FLAGS) if (params.get(name) === 'true') q[name] = 'true'
  q.limit = params.get('limit') || '25'
  return q
}

function filterForm (params) {
  const input = (name, label, extra = {}) => field(label, { name, value: params.get(name) || '', ...extra })
  const flag = (name, label) => el('label', { class: 'flag' }, el('input', { type: 'checkbox', name, value: 'true', checked: params.get(name) === 'true' }), ' ', label)
  const form = el('form', { class: 'card filters', 'aria-label': 'Filter statements' },
    input('agent', 'Agent', { placeholder: 'e-mail, mailto: or Agent JSON' }),
    input('verb', 'Verb IRI'),
    input('activity', 'Activity IRI'),
    input('registration', 'Registration'),
    input('since', 'Stored after', { placeholder: '2024-01-31T00:00:00Z' }),
    input('until', 'Stored at or before'),
    flag('related_agents', 'related agents'),
    flag('related_activities', 'related activities'),
    input('limit', 'Per page', { type: 'number', min: '1', max: '500', value: params.get('limit') || '25' }),
    el('button', { type: 'submit' }, 'Search'))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const chosen = new URLSearchParams()
    for (const [k, v] of Object.entries(formValues(form))) if (v.trim()) chosen.set(k, v.trim())
    window.location.hash = '#/statements?' + chosen.toString() // renders again, and is the link to share
  })
  return form
}

function lookupForm (detail) {
  const form = el('form', { class: 'card', 'aria-label': 'Open a statement by id' },
    field('Statement id', { name: 'id', required: true, size: '38' }), ' ',
    el('button', { type: 'submit' }, 'Open'))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    openStatement(detail, form.elements.id.value.trim())
  })
  return form
}

// One statement by id; a voided one is found with voidedStatementId and
// marked (xAPI hides voided statements from statementId).
async function openStatement (detail, id) {
  show(detail, el('p', {}, 'Loading…'))
  try {
    let voided = false
    let statement
    try {
      statement = await api('/xapi/statements', { query: { statementId: id, attachments: 'false' } })
    } catch (err) {
      if (err.status !== 404) throw err
      try {
        statement = await api('/xapi/statements', { query: { voidedStatementId: id } })
      } catch (err) {
        if (err.status !== 404) throw err
        return show(detail, el('p', { class: 'error', role: 'alert' }, 'No statement ', el('code', {}, id), ' in this store.'))
      }
      voided = true
    }
    renderStatement(detail, statement, { voided })
  } catch (err) {
    show(detail, failure(err))
  }
}

function renderStatement (detail, s, { voided }) {
  const voids = s.verb && s.verb.id === VOIDED && s.object && s.object.objectType === 'StatementRef' ? s.object.id : null
  const attachments = s.attachments || []
  show(detail,
    el('h2', {}, 'Statement ', el('code', {}, s.id)),
    voided ? el('p', { class: 'badge voided' }, 'Voided: another statement voids this one.') : null,
    voids ? el('p', { class: 'badge' }, 'Voids statement ', el('button', { type: 'button', class: 'link', onclick: () => openStatement(detail, voids) }, voids)) : null,
    el('h3', {}, `Attachments (${attachments.length})`),
    attachments.length
      ? el('ul', {}, attachments.map((a) => el('li', {}, `${text(a.display) || a.usageType}: ${a.contentType}, ${a.length} bytes, sha2 ${a.sha2}`)))
      : el('p', {}, 'None.'),
    el('h3', {}, 'JSON'),
    el('pre', { class: 'json', tabindex: '0', 'aria-label': 'Statement JSON' }, jsonText(s)))
  detail.scrollIntoView({ block: 'nearest' })
}

function rows (statements, detail) {
  return statements.map((s) => el('tr', { class: s.verb && s.verb.id === VOIDED ? 'voiding' : null },
    el('td', {}, s.stored),
    el('td', {}, clip(actorText(s.actor))),
    el('td', { class: 'verb' }, clip(text(s.verb && s.verb.display) || (s.verb && s.verb.id))),
    el('td', {}, clip(objectText(s.object))),
    el('td', {}, el('button', { type: 'button', class: 'open', 'data-id': s.id, onclick: () => openStatement(detail, s.id) }, 'Open'))))
}

export async function render (main, params) {
  const results = el('section', { 'aria-label': 'Results' })
  const detail = el('section', { class: 'detail', 'aria-live': 'polite', 'aria-label': 'Statement' })
  // the query as an address: the link to share
  const shareHref = '#/statements' + (params.toString() ? '?' + params : '')
  show(main,
    el('h1', {}, 'Statements'),
    filterForm(params),
    el('p', { class: 'share' }, 'Link to this query: ', el('a', { href: shareHref, id: 'share-link' }, window.location.origin + window.location.pathname + shareHref)),
    lookupForm(detail),
    results,
    detail)
  if (params.get('statementId')) openStatement(detail, params.get('statementId'))

  let page
  try {
    page = await api('/xapi/statements', { query: xapiQuery(params) })
  } catch (err) {
    show(results, failure(err))
    return
  }
  const body = el('tbody', {}, rows(page.statements, detail))
  const more = el('button', { type: 'button', id: 'more' }, 'More')
  more.hidden = !page.more
  let next = page.more
  more.addEventListener('click', async () => {
    try {
      const p = await api(next)
      body.append(...rows(p.statements, detail))
      next = p.more
      more.hidden = !next
    } catch (err) {
      more.replaceWith(failure(err))
    }
  })
  const list = table(['Stored', 'Actor', 'Verb', 'Object', ''], [], 'Newest first')
  list.querySelector('tbody').replaceWith(body)
  show(results, page.statements.length ? list : el('p', {}, 'No statements match.'), more)
}
