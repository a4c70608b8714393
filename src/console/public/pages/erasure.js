// Learner erasure: find an agent, see what erasing it would remove
// (GET /admin/agents), confirm by typing its identifier, erase
// (DELETE /admin/agents) and see what was removed.

import { api } from '../api.js'
import { el, show, field, errorText, typedConfirmation } from '../dom.js'
import { agentParam, agentIdentifier } from '../agent.js'

const counts = (obj) => el('ul', {}, Object.entries(obj).map(([k, v]) => el('li', {}, `${k}: ${v}`)))

function confirmStep (out, agent) {
  const identifier = agentIdentifier(agent)
  const confirm = typedConfirmation(identifier, 'Identifier', 'Erase', { name: 'identifier' })
  const form = el('form', { class: 'card', id: 'confirm-erasure', 'aria-label': 'Confirm the erasure' },
    el('p', {}, 'This cannot be undone. Type ', el('code', {}, identifier), ' to confirm.'),
    confirm.field, ' ', confirm.button)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    if (!confirm.confirmed()) return
    try {
      const result = await api('/admin/agents', { method: 'DELETE', query: { agent } })
      show(out, el('div', { class: 'card', id: 'erasure-result', role: 'status' },
        el('h2', {}, 'Erased'), el('p', {}, 'The audit log names this agent as ', el('code', {}, result.agentDigest), '.'), counts(result.removed)))
    } catch (err) {
      form.append(errorText(err))
    }
  })
  return form
}

export async function render (main) {
  const out = el('section', { 'aria-live': 'polite', 'aria-label': 'Erasure' })
  const find = el('form', { class: 'card', id: 'find-agent', 'aria-label': 'Find an agent' },
    field('Agent', { name: 'agent', required: true, size: '50', placeholder: 'e-mail, mailto: or Agent JSON' }), ' ',
    el('button', { type: 'submit' }, 'Preview'))
  find.addEventListener('submit', async (event) => {
    event.preventDefault()
    try {
      const agent = agentParam(find.elements.agent.value)
      const preview = await api('/admin/agents', { query: { agent } })
      show(out, el('div', { class: 'card', id: 'erasure-preview' }, el('h2', {}, 'Erasing this agent would remove'), counts(preview.wouldRemove)),
        confirmStep(out, agent))
    } catch (err) {
      show(out, errorText(err))
    }
  })
  show(main, el('h1', {}, 'Learner erasure'),
    el('p', {}, 'Removes every statement the agent appears in (other than as authority), its State and Agent Profile documents, attachments no other statement uses and forwarding entries.'),
    find, out)
}
