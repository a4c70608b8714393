// Dashboard: every saved report of the chosen store as a card with its
// chart, each run on its own (a few at a time): one that fails shows its
// error's message, the others still show.

import { api } from '../api.js'
import { el, show, errorText, clip } from '../dom.js'
import { reportChart } from '../chart.js'
import { describe } from './report-form.js'
import { truncatedNote } from './report.js'

const AT_ONCE = 3

function card (r) {
  const body = el('div', { class: 'card-body' }, el('p', {}, 'Running…'))
  const section = el('section', { class: 'card report-card', 'data-report': r.id, 'aria-label': r.name },
    el('h2', {}, el('a', { href: '#/reports/' + encodeURIComponent(r.id) }, clip(r.name, 200))),
    el('p', { class: 'what' }, describe(r.report).what), body)
  async function run () {
    try {
      const answer = await api('/admin/reports/' + encodeURIComponent(r.id) + '/run', { method: 'POST' })
      const chart = reportChart(answer, { title: r.name })
      show(body, truncatedNote(answer), chart || el('p', {}, answer.rows.length ? 'No numeric measure to chart.' : 'No statement counted.'))
      section.dataset.state = 'shown'
    } catch (err) {
      show(body, errorText(err))
      section.dataset.state = 'failed'
    }
  }
  return { section, run }
}

export async function render (main) {
  const list = el('div', { class: 'columns', id: 'dashboard' })
  show(main, el('h1', {}, 'Dashboard'), list)
  let reports
  try {
    reports = (await api('/admin/reports')).reports
  } catch (err) {
    show(list, el('div', { id: 'dashboard-error' }, errorText(err)))
    return
  }
  if (!reports.length) {
    show(list, el('p', { id: 'no-reports' }, 'No saved report in this store: save one on the ', el('a', { href: '#/reports' }, 'Reports'), ' page.'))
    return
  }
  const cards = reports.map(card)
  show(list, cards.map((c) => c.section))
  let next = 0
  const worker = async () => {
    while (next < cards.length && main.isConnected) await cards[next++].run()
  }
  await Promise.all(Array.from({ length: AT_ONCE }, worker))
}
