// Credentials: the list (key, scopes, created), create with scopes (the
// secret is shown once, with a copy button), change scopes, revoke. All
// through /admin/credentials; the bootstrap credential (LRS_ADMIN_USER) is
// managed by the configuration and the API refuses changes to it.

import { api, managesStores, pageStore } from '../api.js'
import { el, show, field, table, errorText, onSubmit } from '../dom.js'

// The scopes a credential may have, as the API's own description lists them.
let scopesKnown = null
async function knownScopes () {
  if (!scopesKnown) {
    const doc = await api('/openapi.json')
    scopesKnown = doc.components.schemas.CredentialRequest.properties.scopes.items.enum
  }
  return scopesKnown
}

function scopeBoxes (all, chosen, legend) {
  return el('fieldset', {}, el('legend', {}, legend),
    all.map((s) => el('label', { class: 'flag' }, el('input', { type: 'checkbox', name: 'scope', value: s, checked: chosen.includes(s) }), ' ', s)))
}

const checkedScopes = (form) => [...form.querySelectorAll('input[name=scope]:checked')].map((i) => i.value)

function createForm (all, onCreated) {
  const message = el('div', { 'aria-live': 'polite' })
  const form = el('form', { class: 'card', id: 'create-credential', 'aria-label': 'Create a credential' },
    el('h2', {}, 'Create a credential'),
    field('Key (generated when empty)', { name: 'key', autocomplete: 'off' }),
    scopeBoxes(all, ['statements/write'], 'Scopes'),
    el('button', { type: 'submit' }, 'Create'),
    message)
  onSubmit(form, message, {
    requestOf (form) {
      const body = { scopes: checkedScopes(form) }
      if (form.elements.key.value.trim()) body.key = form.elements.key.value.trim()
      return body
    },
    async send (body) {
      const made = await api('/admin/credentials', { method: 'POST', body })
      form.reset()
      show(message, secretOnce(made))
      onCreated()
    }
  })
  return form
}

// The new secret, in the page only until it is left: the LRS keeps a hash.
function secretOnce ({ key, secret }) {
  const status = el('span', { role: 'status' })
  const copy = el('button', { type: 'button', class: 'secondary', id: 'copy-secret' }, 'Copy secret')
  const secretText = el('code', { class: 'secret', id: 'new-secret' }, secret)
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(secret)
      status.textContent = ' Copied.'
    } catch {
      // no clipboard (a page served over plain http off localhost): select it
      window.getSelection().selectAllChildren(secretText)
      status.textContent = ' Selected: press Ctrl+C.'
    }
  })
  return el('div', { class: 'created' },
    el('p', {}, 'Created ', el('code', { id: 'new-key' }, key), '. Its secret, shown this once:'),
    el('p', {}, secretText, ' ', copy, status))
}

// The scopes this page offers: stores/admin only to a credential that may
// give it, metrics only in the default store (GET /metrics covers every
// store: a credential of another store is refused it).
function offered (all) {
  return all.filter((s) => (s !== 'stores/admin' || managesStores()) && (s !== 'metrics' || [null, 'default'].includes(pageStore())))
}

function row (c, all, reload, { storeColumn }) {
  const actions = el('td', {})
  const scopes = el('td', {}, c.scopes.join(', '))
  const revoke = el('button', { type: 'button', class: 'danger', 'data-revoke': c.key }, 'Revoke')
  const edit = el('button', { type: 'button', class: 'secondary', 'data-edit': c.key }, 'Change scopes')
  // Revoking asks once more in the page (no window.confirm dialog).
  revoke.addEventListener('click', async () => {
    if (revoke.dataset.armed !== 'true') {
      revoke.dataset.armed = 'true'
      revoke.textContent = 'Confirm revoke'
      return
    }
    try {
      await api('/admin/credentials/' + encodeURIComponent(c.key), { method: 'DELETE' })
      reload()
    } catch (err) {
      show(actions, errorText(err))
    }
  })
  edit.addEventListener('click', () => {
    const boxes = all.filter((s) => offered(all).includes(s) || c.scopes.includes(s))
    const form = el('form', { 'aria-label': 'Scopes of ' + c.key }, scopeBoxes(boxes, c.scopes, 'Scopes of ' + c.key), el('button', { type: 'submit' }, 'Save'))
    form.addEventListener('submit', async (event) => {
      event.preventDefault()
      try {
        await api('/admin/credentials/' + encodeURIComponent(c.key), { method: 'PUT', body: { scopes: checkedScopes(form) } })
        reload()
      } catch (err) {
        form.append(errorText(err))
      }
    })
    show(scopes, form)
  })
  if (c.bootstrap) actions.append('managed by the configuration')
  else actions.append(edit, ' ', revoke)
  return el('tr', { 'data-key': c.key }, el('td', {}, el('code', {}, c.key)), storeColumn ? el('td', {}, el('code', {}, c.store)) : null, scopes, el('td', {}, c.createdAt || ''), el('td', {}, c.lastUsedAt || 'never'), actions)
}

export async function render (main) {
  const all = await knownScopes()
  const list = el('section', { 'aria-label': 'Credentials', id: 'credential-list' })
  async function reload () {
    try {
      const { credentials } = await api('/admin/credentials')
      // every store's (stores/admin, no store chosen): which is whose
      const storeColumn = new Set(credentials.map((c) => c.store)).size > 1
      const headings = ['Key', storeColumn ? 'Store' : null, 'Scopes', 'Created', 'Last used', ''].filter((h) => h !== null)
      show(list, table(headings, credentials.map((c) => row(c, all, reload, { storeColumn })), `${credentials.length} credentials`))
    } catch (err) {
      show(list, errorText(err))
    }
  }
  show(main, el('h1', {}, 'Credentials'), createForm(offered(all), reload), list)
  await reload()
}
