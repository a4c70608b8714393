// The Forwarders page's form that makes one (POST /admin/forwarders): a
// name, the target (another LRS with its auth, or a webhook), the filter
// (as GET /statements filters) and the batch size. Only the fields of the
// chosen target and auth are shown and sent. A webhook made here gets a
// signing secret from the LRS, shown this once (the LRS keeps it sealed and
// never shows it again).

import { api } from '../api.js'
import { el, show, field, onSubmit } from '../dom.js'

const AUTH_FIELDS = {
  none: [],
  basic: ['username', 'password'],
  bearer: ['token'],
  oauth2: ['tokenUrl', 'clientId', 'clientSecret', 'scope']
}

function choice (label, name, options) {
  return el('label', {}, label, ' ', el('select', { name }, options.map(([value, text]) => el('option', { value }, text))))
}

// A group of fields shown for one choice only (`data-for`).
const group = (dataFor, ...fields) => el('div', { class: 'field-group', 'data-for': dataFor }, fields)

// The request the form says; throws an Error with what is wrong where the
// page can tell before asking (the agent's JSON).
function requestOf (form) {
  const value = (name) => form.elements[name].value.trim()
  const kind = value('kind')
  const target = { kind, url: value('url') }
  if (kind === 'lrs') {
    const type = value('authType')
    const auth = { type }
    for (const name of AUTH_FIELDS[type]) {
      // secrets as typed (a password may begin or end with a space)
      const v = /password|token$|Secret/.test(name) ? form.elements[name].value : value(name)
      if (v) auth[name] = v
    }
    target.auth = auth
  }
  const filter = {}
  for (const name of ['verb', 'activity', 'registration']) if (value(name)) filter[name] = value(name)
  if (value('agent')) {
    try {
      filter.agent = JSON.parse(value('agent'))
    } catch (err) {
      throw new Error(`The filter's agent is not JSON: ${err.message}`)
    }
  }
  for (const name of ['related_agents', 'related_activities']) if (form.elements[name].checked) filter[name] = true
  if (form.elements.noVoiding.checked) filter.voiding = false
  const body = { name: value('name'), target, filter }
  if (value('batchSize')) body.batchSize = Number(value('batchSize'))
  return body
}

// The signing secret of a webhook just made: the receiver needs it to
// check each delivery, and the LRS never shows it again.
function secretOnce (secret) {
  const status = el('span', { role: 'status' })
  const text = el('code', { class: 'secret', id: 'webhook-secret' }, secret)
  const copy = el('button', { type: 'button', class: 'secondary' }, 'Copy secret')
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(secret)
      status.textContent = ' Copied.'
    } catch {
      window.getSelection().selectAllChildren(text)
      status.textContent = ' Selected: press Ctrl+C.'
    }
  })
  return el('p', {}, 'Its signing secret (Standard Webhooks), shown this once: ', text, ' ', copy, status)
}

export function createForm (onCreated) {
  const message = el('div', { 'aria-live': 'polite', id: 'create-forwarder-message' })
  const form = el('form', { class: 'card', id: 'create-forwarder', 'aria-label': 'Create a forwarder' },
    el('h2', {}, 'Create a forwarder'),
    el('fieldset', {}, el('legend', {}, 'Forwarder'),
      field('Name', { name: 'name', required: true, maxlength: '200', autocomplete: 'off' }),
      choice('Target', 'kind', [['lrs', 'LRS'], ['webhook', 'Webhook']]),
      field('URL (an LRS\'s xAPI endpoint, or the webhook\'s address)', { name: 'url', type: 'url', required: true, maxlength: '2000', autocomplete: 'off', placeholder: 'https://lrs.example.org/xapi' }),
      field('Batch size (statements per delivery; default 100)', { name: 'batchSize', type: 'number', min: '1', max: '500' })),
    el('fieldset', { 'data-for': 'lrs' }, el('legend', {}, 'The LRS\'s credentials (kept sealed, never shown again)'),
      choice('Auth', 'authType', [['none', 'None'], ['basic', 'Basic'], ['bearer', 'Bearer token'], ['oauth2', 'OAuth 2.0 client credentials']]),
      group('basic', field('Username', { name: 'username', autocomplete: 'off' }), field('Password', { name: 'password', type: 'password', autocomplete: 'new-password' })),
      group('bearer', field('Token', { name: 'token', type: 'password', autocomplete: 'off' })),
      group('oauth2',
        field('Token URL', { name: 'tokenUrl', type: 'url', autocomplete: 'off' }),
        field('Client id', { name: 'clientId', autocomplete: 'off' }),
        field('Client secret', { name: 'clientSecret', type: 'password', autocomplete: 'new-password' }),
        field('Scope (optional)', { name: 'scope', autocomplete: 'off' }))),
    el('fieldset', {}, el('legend', {}, 'Which statements (empty: all of them)'),
      field('Verb', { name: 'verb', autocomplete: 'off', placeholder: 'http://adlnet.gov/expapi/verbs/completed' }),
      field('Activity', { name: 'activity', autocomplete: 'off' }),
      el('label', {}, 'Agent (JSON)', ' ', el('textarea', { name: 'agent', rows: '2', cols: '40', autocomplete: 'off', placeholder: '{"mbox": "mailto:ada@example.com"}' })),
      field('Registration', { name: 'registration', autocomplete: 'off' }),
      el('label', { class: 'flag' }, el('input', { type: 'checkbox', name: 'related_agents' }), ' related agents'),
      el('label', { class: 'flag' }, el('input', { type: 'checkbox', name: 'related_activities' }), ' related activities'),
      el('label', { class: 'flag' }, el('input', { type: 'checkbox', name: 'noVoiding' }), ' leave voiding statements out')),
    el('button', { type: 'submit' }, 'Create'),
    message)

  // Only the chosen target's and auth's fields are shown (and sent).
  const showChosen = () => {
    const kind = form.elements.kind.value
    const type = form.elements.authType.value
    for (const g of form.querySelectorAll('[data-for]')) {
      const chosen = g.dataset.for === kind || g.dataset.for === type
      g.hidden = !chosen
      for (const input of g.querySelectorAll('input, select')) if (input.closest('[data-for]') === g) input.disabled = !chosen
    }
  }
  form.elements.kind.addEventListener('change', showChosen)
  form.elements.authType.addEventListener('change', showChosen)
  // (reset fires before the fields are reset)
  form.addEventListener('reset', () => setTimeout(showChosen))
  showChosen()

  onSubmit(form, message, {
    requestOf,
    async send (body) {
      const made = await api('/admin/forwarders', { method: 'POST', body })
      form.reset()
      show(message, el('div', { class: 'created' },
        el('p', { role: 'status' }, 'Created ', el('bdi', {}, made.name), '. Statements stored from now on that its filter picks are forwarded.'),
        made.secrets ? secretOnce(made.secrets[0]) : null))
      onCreated()
    }
  })
  return form
}
