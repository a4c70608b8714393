// Stores, for a credential with stores/admin: every store with what it
// holds (GET /admin/stores), create, rename, retention, upstreams (PUT
// /admin/stores/{id}), what is done with its statements
// (store-statements.js), and delete: what would go first (GET
// /admin/stores/{id}), then the store's id typed to confirm. Names are
// anyone's text: shown as text. An upstream's credentials are never shown
// (the API keeps them to itself), so upstreams are replaced whole.

import { api as lrsApi } from '../api.js'
import { el, show, field, table, errorText, bytes, typedConfirmation } from '../dom.js'
import { statementActions } from './store-statements.js'

// Stores are the whole LRS's, whichever the header's menu has chosen.
const api = (path, options = {}) => lrsApi(path, { ...options, store: null })

const retention = (days) => days ? `${days} days` : 'for good'
const storePath = (id) => '/admin/stores/' + encodeURIComponent(id)

// The header's store menu lists the stores: it is told when they change.
const changed = () => window.dispatchEvent(new Event('stores-changed'))

function createForm (onCreated) {
  const message = el('div', { 'aria-live': 'polite' })
  const form = el('form', { class: 'card', id: 'create-store', 'aria-label': 'Create a store' },
    el('h2', {}, 'Create a store'),
    field('Id (lower-case letters, digits, dashes; for good)', { name: 'id', required: true, pattern: '[a-z0-9][a-z0-9\\-]{0,62}', autocomplete: 'off' }),
    field('Name (the id when empty)', { name: 'name', maxlength: '200', autocomplete: 'off' }),
    field('Keep statements (days; empty: for good)', { name: 'retentionDays', type: 'number', min: '1', max: '36500' }),
    el('button', { type: 'submit' }, 'Create'),
    message)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    const body = { id: form.elements.id.value.trim() }
    if (form.elements.name.value.trim()) body.name = form.elements.name.value.trim()
    if (form.elements.retentionDays.value) body.retentionDays = Number(form.elements.retentionDays.value)
    try {
      const made = await api('/admin/stores', { method: 'POST', body })
      form.reset()
      show(message, el('p', { role: 'status' }, 'Created ', el('code', {}, made.id), '. Give it credentials on the Credentials page, with it chosen in the Store menu.'))
      changed()
      onCreated()
    } catch (err) {
      show(message, errorText(err))
    }
  })
  return form
}

// Name and retention in one form, upstreams in another: an upstream list
// is sent only when it is meant to change.
function changeForms (s, out, reload) {
  const settings = el('form', { class: 'card', id: 'change-store', 'aria-label': 'Change ' + s.id },
    el('h2', {}, 'Change ', el('code', {}, s.id)),
    field('Name', { name: 'name', value: s.name, required: true, maxlength: '200', autocomplete: 'off' }),
    field('Keep statements (days; empty: for good)', { name: 'retentionDays', type: 'number', min: '1', max: '36500', value: s.retentionDays ?? '' }),
    el('button', { type: 'submit' }, 'Save'))
  settings.addEventListener('submit', async (event) => {
    event.preventDefault()
    const days = settings.elements.retentionDays.value
    await save(settings, { name: settings.elements.name.value.trim(), retentionDays: days ? Number(days) : null })
  })
  const urls = el('textarea', { name: 'forwardUrls', rows: '3', cols: '60', autocomplete: 'off', placeholder: 'https://key:secret@lrs.example.com/xapi' })
  const upstreams = el('form', { class: 'card', id: 'store-upstreams', 'aria-label': 'Upstreams of ' + s.id },
    el('h2', {}, 'Upstreams of ', el('code', {}, s.id)),
    el('p', {}, s.forwardTo.length ? ['Now: ', s.forwardTo.map((u, i) => [i ? ', ' : '', el('code', {}, u)])] : 'Now: none.',
      ' A new list replaces them (their credentials are never shown, so give every one again); an empty list stops forwarding. Only statements stored after the change are forwarded.'),
    el('label', {}, 'One upstream LRS endpoint a line', ' ', urls),
    el('button', { type: 'submit' }, 'Replace upstreams'))
  upstreams.addEventListener('submit', async (event) => {
    event.preventDefault()
    await save(upstreams, { forwardUrls: urls.value.split('\n').map((u) => u.trim()).filter(Boolean) })
  })
  async function save (form, body) {
    try {
      await api(storePath(s.id), { method: 'PUT', body })
      show(out, el('p', { role: 'status', id: 'store-saved' }, 'Saved ', el('code', {}, s.id), '.'))
      changed()
      await reload()
    } catch (err) {
      form.querySelector('.error')?.remove()
      form.append(errorText(err))
    }
  }
  show(out, settings, upstreams)
  settings.elements.name.focus()
}

// What goes (GET /admin/stores/{id}), then the id typed again.
async function deleteStep (s, out, reload) {
  let now
  try {
    now = await api(storePath(s.id))
  } catch (err) {
    show(out, errorText(err))
    return
  }
  const confirm = typedConfirmation(s.id, 'Store id', 'Delete the store')
  const form = el('form', { class: 'card', id: 'confirm-store-deletion', 'aria-label': 'Confirm deleting ' + s.id },
    el('h2', {}, 'Deleting ', el('code', {}, s.id), ' removes'),
    el('ul', { id: 'store-deletion-preview' },
      el('li', {}, `statements: ${now.statements}`),
      el('li', {}, `documents: ${now.documents} (${bytes(now.documentBytes)})`),
      el('li', {}, `attachments: ${now.attachments} (${bytes(now.attachmentBytes)})`),
      el('li', {}, `credentials: ${now.credentials}`)),
    el('p', {}, 'This cannot be undone: its credentials stop at once and its data is purged in the background. Type ', el('code', {}, s.id), ' to confirm.'),
    confirm.field, ' ', confirm.button)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    if (!confirm.confirmed()) return
    try {
      const { deleted } = await api(storePath(s.id), { method: 'DELETE', query: { confirm: s.id } })
      show(out, el('p', { role: 'status', id: 'store-deleted' }, 'Deleted ', el('code', {}, deleted.id), `: its ${deleted.statements} statements are being purged.`))
      changed()
      await reload()
    } catch (err) {
      form.append(errorText(err))
    }
  })
  show(out, form)
  confirm.input.focus()
}

function row (s, out, reload) {
  const edit = el('button', { type: 'button', class: 'secondary', 'data-edit': s.id }, 'Change')
  edit.addEventListener('click', () => changeForms(s, out, reload))
  const remove = el('button', { type: 'button', class: 'danger', 'data-delete': s.id }, 'Delete…')
  remove.addEventListener('click', () => deleteStep(s, out, reload))
  return el('tr', { 'data-store': s.id },
    el('td', {}, el('code', {}, s.id)), el('td', {}, s.name),
    el('td', {}, String(s.statements)),
    el('td', {}, `${s.documents} (${bytes(s.documentBytes)})`),
    el('td', {}, `${s.attachments} (${bytes(s.attachmentBytes)})`),
    el('td', {}, String(s.credentials)),
    el('td', {}, retention(s.retentionDays)),
    el('td', {}, s.forwardTo.length ? s.forwardTo.map((u) => el('code', { class: 'upstream' }, u)) : '—'),
    el('td', {}, edit, ' ', statementActions(s, out, reload), s.id === 'default' ? null : [' ', remove]))
}

export async function render (main) {
  const out = el('section', { 'aria-live': 'polite', 'aria-label': 'Chosen store' })
  const list = el('section', { 'aria-label': 'Stores', id: 'store-list' })
  async function reload () {
    try {
      const { stores, deleting } = await api('/admin/stores')
      show(list,
        table(['Id', 'Name', 'Statements', 'Documents', 'Attachments', 'Credentials', 'Kept', 'Forwards to', ''], stores.map((s) => row(s, out, reload)), `${stores.length} stores`),
        deleting.length
          ? table(['Id', 'Name', 'Deleted at', 'Statements left'], deleting.map((d) => el('tr', { 'data-deleting': d.id }, el('td', {}, el('code', {}, d.id)), el('td', {}, d.name), el('td', {}, d.deletedAt), el('td', {}, String(d.statementsLeft)))), 'Deleted, being purged')
          : null)
    } catch (err) {
      show(list, errorText(err))
    }
  }
  show(main, el('h1', {}, 'Stores'),
    el('p', {}, 'Each store keeps its statements, documents, attachments, credentials and upstreams apart from every other; a credential belongs to one store.'),
    createForm(reload), list, out)
  await reload()
}
