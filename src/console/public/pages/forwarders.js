// Forwarders: the chosen store's forwarders (GET /admin/forwarders) with
// how each delivers: healthy, retrying or failing since when, paused; the
// last error, what was delivered, the lag (age of the oldest statement
// queued, and how many are), the dead letters. The list reads itself again
// every few seconds while the page is shown, row by row in place (a button
// keeps its focus and a removal waiting for its second click stays asked).
// Make one (forwarder-form.js), pause, resume, remove (asked twice), its
// dead letters (forwarder-dead-letters.js). A target is shown as its kind
// and host only: the API never shows a secret, and the URL's path is
// the store admin's business, not the screen's.

import { api } from '../api.js'
import { el, show, errorText, clip } from '../dom.js'
import { createForm } from './forwarder-form.js'
import { showDeadLetters } from './forwarder-dead-letters.js'

const REFRESH_MS = 3000
const pathOf = (id) => '/admin/forwarders/' + encodeURIComponent(id)
const HEADINGS = ['Name', 'Target', 'Filter', 'State', 'Last error', 'Delivered', 'Lag', 'Dead letters', '']

function hostOf (url) {
  try {
    return new URL(url).host
  } catch {
    return ''
  }
}

const targetText = (t) => `${t.kind === 'lrs' ? 'LRS' : 'Webhook'} ${hostOf(t.url)}`

function filterText (filter = {}) {
  const parts = []
  if (filter.verb) parts.push('verb ' + filter.verb)
  if (filter.activity) parts.push('activity ' + filter.activity + (filter.related_activities ? ' (or related)' : ''))
  if (filter.agent) parts.push('agent ' + JSON.stringify(filter.agent) + (filter.related_agents ? ' (or related)' : ''))
  if (filter.registration) parts.push('registration ' + filter.registration)
  if (filter.voiding === false) parts.push('no voiding statements')
  return parts.length ? parts.join('; ') : 'every statement'
}

function stateText (d) {
  if (d.status === 'retrying' || d.status === 'failing') {
    const since = d.failingSince ? `${d.status} since ${d.failingSince}` : d.status
    return d.circuit === 'open' ? `${since} (circuit open: tried once per longest backoff)` : since
  }
  return d.status
}

const errorCell = (d) => d.lastError ? [clip(d.lastError), d.lastErrorAt ? el('span', { class: 'when' }, d.lastErrorAt) : null] : '—'
const lagText = (d) => `${d.lagSeconds} s, ${d.queued} queued`

// A row that updates itself in place: { tr, update(f) }.
function forwarderRow (f, actions) {
  const cells = Object.fromEntries(['name', 'target', 'filter', 'state', 'last-error', 'delivered', 'lag', 'dead'].map((c) => [c, el('td', { class: c })]))
  const pause = el('button', { type: 'button', class: 'secondary', 'data-action': 'pause' })
  const deadLetters = el('button', { type: 'button', class: 'secondary', 'data-action': 'dead-letters' }, 'Dead letters')
  const remove = el('button', { type: 'button', class: 'danger', 'data-action': 'remove' }, 'Remove')
  const cancel = el('button', { type: 'button', class: 'secondary', 'data-action': 'cancel-remove', hidden: true }, 'Cancel')
  const tr = el('tr', { 'data-forwarder': f.id }, Object.values(cells), el('td', { class: 'actions' }, pause, ' ', deadLetters, ' ', remove, ' ', cancel))
  let current = f
  pause.addEventListener('click', () => actions.pauseOrResume(current, current.state === 'paused' ? 'resume' : 'pause'))
  deadLetters.addEventListener('click', () => actions.deadLetters(current))
  // Removing asks once more in the page (no window.confirm dialog).
  const disarm = () => {
    delete remove.dataset.armed
    remove.textContent = 'Remove'
    cancel.hidden = true
  }
  cancel.addEventListener('click', () => { disarm(); actions.said('') })
  remove.addEventListener('click', () => {
    if (remove.dataset.armed !== 'true') {
      remove.dataset.armed = 'true'
      remove.textContent = 'Confirm remove'
      cancel.hidden = false
      actions.said(['Removing ', el('bdi', {}, current.name), ' drops its queue and its dead letters (the statements stay stored): click Confirm remove.'])
      return
    }
    disarm()
    actions.remove(current)
  })
  const set = (cell, content) => {
    const text = typeof content === 'string' ? content : null
    if (text !== null && cell.textContent === text && cell.childElementCount === 0) return
    show(cell, content)
  }
  function update (next) {
    current = next
    const d = next.delivery
    tr.dataset.status = d.status
    set(cells.name, clip(next.name, 200))
    set(cells.target, targetText(next.target))
    set(cells.filter, clip(filterText(next.filter)))
    set(cells.state, stateText(d))
    set(cells['last-error'], errorCell(d))
    set(cells.delivered, String(d.delivered))
    set(cells.lag, lagText(d))
    set(cells.dead, String(d.deadLetters))
    pause.textContent = next.state === 'paused' ? 'Resume' : 'Pause'
    pause.dataset.action = next.state === 'paused' ? 'resume' : 'pause'
  }
  update(f)
  return { tr, update }
}

function configuredNote (configured) {
  if (!configured.length) return null
  return el('p', { id: 'configured-upstreams' }, 'Also forwarded, set elsewhere (see ', el('a', { href: '#/forwarding' }, 'Forwarding'), '): ',
    configured.map((u, i) => [i ? ', ' : '', el('code', {}, u.upstream), ` (${u.managedBy}, ${u.forwards})`]), '.')
}

export async function render (main) {
  const status = el('div', { role: 'status', id: 'forwarder-status' })
  const refused = el('div', { id: 'forwarders-error' })
  const rows = new Map() // id -> { tr, update }
  const gone = new Set() // removed here: an answer read before never brings one back
  const body = el('tbody', {})
  const caption = el('caption', {})
  // (hidden on a wrapper: a narrow window's CSS makes tables blocks, over [hidden])
  const list = el('div', { id: 'forwarder-list' }, el('table', {}, caption, el('thead', {}, el('tr', {}, HEADINGS.map((h) => el('th', { scope: 'col' }, h)))), body))
  const none = el('p', { id: 'no-forwarders', hidden: true }, 'No forwarder: this store\'s statements go nowhere else (but where the configuration says, below).')
  const configured = el('div', {})
  const deadLetterSection = el('section', { 'aria-label': 'Dead letters', id: 'dead-letters' })
  let seq = 0
  let refusedText = null
  let configuredText = null
  const said = (content) => show(status, content)

  const actions = {
    said,
    async pauseOrResume (f, action) {
      try {
        const now = await api(pathOf(f.id) + '/' + action, { method: 'POST' })
        if (rows.has(f.id)) rows.get(f.id).update(now)
        said([action === 'pause' ? 'Paused ' : 'Resumed ', el('bdi', {}, f.name), action === 'pause' ? ': statements are queued, not delivered.' : '.'])
      } catch (err) {
        said(errorText(err))
      }
      await refresh()
    },
    async remove (f) {
      try {
        await api(pathOf(f.id), { method: 'DELETE' })
        gone.add(f.id)
        rows.get(f.id)?.tr.remove()
        rows.delete(f.id)
        if (deadLetterSection.dataset.forwarder === f.id) show(deadLetterSection)
        said(['Removed ', el('bdi', {}, f.name), '.'])
      } catch (err) {
        said(errorText(err))
      }
      await refresh()
    },
    async deadLetters (f) {
      deadLetterSection.dataset.forwarder = f.id
      await showDeadLetters(deadLetterSection, f, refresh)
    }
  }

  // Reads the list; only the newest read is shown (an older answer, read
  // before a removal, would bring the removed one back).
  async function refresh () {
    const mine = ++seq
    let answer
    try {
      answer = await api('/admin/forwarders')
    } catch (err) {
      if (mine !== seq) return
      // a credential without admin: the API's refusal, and nothing to act on
      if (refusedText !== err.message) show(refused, errorText(err))
      refusedText = err.message
      if (err.status === 403) {
        form.hidden = list.hidden = true
        none.hidden = true
        show(configured)
        show(deadLetterSection)
        for (const { tr } of rows.values()) tr.remove()
        rows.clear()
      }
      return
    }
    if (mine !== seq) return
    if (refusedText !== null) show(refused)
    refusedText = null
    form.hidden = false
    const forwarders = answer.forwarders.filter((f) => !gone.has(f.id))
    const ids = new Set(forwarders.map((f) => f.id))
    for (const [id, row] of rows) {
      if (!ids.has(id)) {
        row.tr.remove()
        rows.delete(id)
      }
    }
    for (const f of forwarders) {
      if (rows.has(f.id)) rows.get(f.id).update(f)
      else {
        const row = forwarderRow(f, actions)
        rows.set(f.id, row)
        body.append(row.tr)
      }
    }
    caption.textContent = `${forwarders.length} forwarder${forwarders.length === 1 ? '' : 's'}; read every ${REFRESH_MS / 1000} s`
    list.hidden = forwarders.length === 0
    none.hidden = forwarders.length !== 0
    const text = JSON.stringify(answer.configured)
    if (text !== configuredText) show(configured, configuredNote(answer.configured))
    configuredText = text
  }

  // Every few seconds while this page is shown (each page shown gets an
  // element of its own: once it left the document, the reading stops).
  async function tick () {
    if (!main.isConnected) return
    if (!document.hidden) await refresh()
    if (main.isConnected) setTimeout(tick, REFRESH_MS)
  }

  const form = createForm(refresh)
  show(main, el('h1', {}, 'Forwarders'), refused, status,
    el('section', { 'aria-label': 'Forwarders', id: 'forwarders' }, list, none, configured),
    deadLetterSection, form)
  await refresh()
  setTimeout(tick, REFRESH_MS)
}
