// Forwarding: the upstreams (the store's own, and LRS_FORWARD_URLS's for
// the default store and stores/admin) with their queue depth, the
// dead letters (statements an upstream refused for good, with its answer
// shown as text), their replay and their discard (asked twice: it cannot
// be undone).

import { api } from '../api.js'
import { el, show, table, errorText } from '../dom.js'

function upstreamRows (upstreams, replay, discard) {
  return upstreams.map((u) => el('tr', { 'data-upstream': u.id },
    el('td', {}, el('code', {}, u.id)), el('td', {}, u.forwards), el('td', {}, String(u.queued)), el('td', {}, u.oldestEnqueuedAt || '—'), el('td', {}, String(u.deadLetters)),
    el('td', {}, u.deadLetters
      ? [el('button', { type: 'button', class: 'secondary', 'data-action': 'replay', onclick: () => replay(u.id) }, 'Replay dead letters'), ' ',
          el('button', { type: 'button', class: 'secondary', 'data-action': 'discard', onclick: (event) => discard(u.id, event.currentTarget) }, 'Discard dead letters')]
      : null)))
}

function deadLetterRows (deadLetters) {
  return deadLetters.map((d) => el('tr', {},
    el('td', {}, el('code', {}, d.upstream)),
    el('td', {}, el('a', { href: '#/statements?statementId=' + encodeURIComponent(d.statementId) }, d.statementId)),
    el('td', {}, String(d.status)), el('td', {}, d.reason), el('td', {}, d.failedAt)))
}

export async function render (main) {
  const status = el('p', { role: 'status', id: 'replay-status' })
  const content = el('div', {})
  async function reload () {
    try {
      const [{ upstreams }, { deadLetters }] = await Promise.all([api('/admin/forwarding/upstreams'), api('/admin/forwarding/dead-letters', { query: { limit: 100 } })])
      show(content,
        el('h2', {}, 'Upstreams'),
        upstreams.length
          ? table(['Upstream', 'Forwards', 'Queued', 'Oldest queued', 'Dead letters', ''], upstreamRows(upstreams, replay, discard))
          : el('p', {}, 'No upstream: this store\'s statements are not forwarded (a store\'s upstreams are set with lrs store forward or PUT /admin/stores/{id}, forwardUrls; the LRS-wide ones with LRS_FORWARD_URLS).'),
        el('h2', {}, 'Dead letters'),
        deadLetters.length
          ? table(['Upstream', 'Statement', 'Status', 'Answer', 'Failed at'], deadLetterRows(deadLetters), 'The latest 100')
          : el('p', {}, 'None.'))
    } catch (err) {
      show(content, errorText(err))
    }
  }
  async function replay (upstream) {
    try {
      const { replayed } = await api('/admin/forwarding/dead-letters/replay', { method: 'POST', body: { upstream } })
      status.textContent = `${replayed} put back in the outbox of ${upstream}.`
      await reload()
    } catch (err) {
      show(status, errorText(err))
    }
  }
  // The first click asks; only a second click on the same button drops them.
  async function discard (upstream, button) {
    if (button.dataset.confirm !== 'yes') {
      button.dataset.confirm = 'yes'
      button.textContent = 'Discard for good? Click again'
      status.textContent = `Discarding drops the dead letters of ${upstream} for good; the statements stay stored.`
      return
    }
    try {
      const { discarded } = await api('/admin/forwarding/dead-letters/discard', { method: 'POST', body: { upstream } })
      status.textContent = `${discarded} dead letters of ${upstream} discarded.`
      await reload()
    } catch (err) {
      show(status, errorText(err))
    }
  }
  show(main, el('h1', {}, 'Forwarding'), status, content)
  await reload()
}
