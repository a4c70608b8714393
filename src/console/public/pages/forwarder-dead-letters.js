// One forwarder's dead letters on the Forwarders page: the statements its
// target refused for good (or that it gave up on), with the target's answer
// shown as text; replay (back in its queue) and discard (asked twice: it
// cannot be undone; the statements stay stored).
// GET /admin/forwarders/{id}/dead-letters, POST .../replay, .../discard.

import { api } from '../api.js'
import { el, show, table, errorText, clip } from '../dom.js'

const LIMIT = 100
const letters = (n) => `${n} dead letter${n === 1 ? '' : 's'}`
const pathOf = (id) => '/admin/forwarders/' + encodeURIComponent(id) + '/dead-letters'

function rows (deadLetters) {
  return deadLetters.map((d) => el('tr', { 'data-statement': d.statementId },
    el('td', {}, el('a', { href: '#/statements?statementId=' + encodeURIComponent(d.statementId) }, d.statementId)),
    el('td', {}, String(d.status)),
    el('td', {}, clip(d.reason || '')),
    el('td', {}, d.failedAt || '')))
}

// Shows forwarder `f`'s dead letters in `section`; `changed` is called
// after a replay or a discard (the list's counts change).
export async function showDeadLetters (section, f, changed) {
  const status = el('p', { role: 'status', id: 'dead-letter-status' })
  const content = el('div', {})
  const replay = el('button', { type: 'button', class: 'secondary', id: 'replay-dead-letters' }, 'Replay')
  const discard = el('button', { type: 'button', class: 'danger', id: 'discard-dead-letters' }, 'Discard')
  const close = el('button', { type: 'button', class: 'secondary', id: 'close-dead-letters' }, 'Close')
  close.addEventListener('click', () => show(section))

  async function reload () {
    try {
      const { deadLetters } = await api(pathOf(f.id), { query: { limit: LIMIT } })
      replay.disabled = discard.disabled = deadLetters.length === 0
      show(content, deadLetters.length
        ? table(['Statement', 'Status', 'Answer', 'Failed at'], rows(deadLetters), deadLetters.length === LIMIT ? `The first ${LIMIT}` : letters(deadLetters.length))
        : el('p', {}, 'None.'))
    } catch (err) {
      show(content, errorText(err))
    }
  }
  replay.addEventListener('click', async () => {
    try {
      const { replayed } = await api(pathOf(f.id) + '/replay', { method: 'POST' })
      show(status, `${replayed} put back in the queue of `, el('bdi', {}, f.name), '.')
      changed()
      await reload()
    } catch (err) {
      show(status, errorText(err))
    }
  })
  // The first click asks; only a second click on the same button drops them.
  discard.addEventListener('click', async () => {
    if (discard.dataset.confirm !== 'yes') {
      discard.dataset.confirm = 'yes'
      discard.textContent = 'Discard for good? Click again'
      show(status, 'Discarding drops the dead letters of ', el('bdi', {}, f.name), ' for good; the statements stay stored.')
      return
    }
    delete discard.dataset.confirm
    discard.textContent = 'Discard'
    try {
      const { discarded } = await api(pathOf(f.id) + '/discard', { method: 'POST' })
      show(status, letters(discarded) + ' of ', el('bdi', {}, f.name), ' discarded.')
      changed()
      await reload()
    } catch (err) {
      show(status, errorText(err))
    }
  })

  show(section,
    el('h2', {}, 'Dead letters of ', el('bdi', {}, f.name)),
    el('p', {}, replay, ' ', discard, ' ', close),
    status, content)
  await reload()
  section.scrollIntoView({ block: 'nearest' })
}
