// Reports: the chosen store's saved reports (GET /admin/reports), each
// with what it groups and measures and a link to its page (report.js);
// save one (report-form.js); remove (asked once more in the page). A
// report's name is anyone's text: shown as text. A credential the API
// refuses (no reports or admin scope) gets the 403's message.

import { api } from '../api.js'
import { el, show, errorText, clip, table } from '../dom.js'
import { reportForm, describe } from './report-form.js'

const pathOf = (id) => '/admin/reports/' + encodeURIComponent(id)

function reportRow (r, said, reload) {
  const { what, filter, timeZone } = describe(r.report)
  const remove = el('button', { type: 'button', class: 'danger', 'data-action': 'remove' }, 'Remove')
  const cancel = el('button', { type: 'button', class: 'secondary', 'data-action': 'cancel-remove', hidden: true }, 'Cancel')
  const disarm = () => {
    delete remove.dataset.armed
    remove.textContent = 'Remove'
    cancel.hidden = true
  }
  cancel.addEventListener('click', () => { disarm(); said('') })
  remove.addEventListener('click', async () => {
    if (remove.dataset.armed !== 'true') {
      remove.dataset.armed = 'true'
      remove.textContent = 'Confirm remove'
      cancel.hidden = false
      said(['Removing ', el('bdi', {}, r.name), ' removes the saved report (no statement): click Confirm remove.'])
      return
    }
    disarm()
    try {
      await api(pathOf(r.id), { method: 'DELETE' })
      said(['Removed ', el('bdi', {}, r.name), '.'])
    } catch (err) {
      said(errorText(err))
    }
    await reload()
  })
  return el('tr', { 'data-report': r.id },
    el('td', { class: 'name' }, el('a', { href: '#/reports/' + encodeURIComponent(r.id) }, clip(r.name, 200))),
    el('td', { class: 'what' }, what),
    el('td', { class: 'filter' }, clip(filter)),
    el('td', { class: 'zone' }, timeZone),
    el('td', { class: 'actions' }, remove, ' ', cancel))
}

export async function render (main) {
  const status = el('div', { role: 'status', id: 'report-status' })
  const list = el('section', { 'aria-label': 'Saved reports', id: 'reports' })
  const said = (content) => show(status, content)
  async function reload () {
    let answer
    try {
      answer = await api('/admin/reports')
    } catch (err) {
      show(list, el('div', { id: 'reports-error' }, errorText(err)))
      if (err.status === 403) form.hidden = true
      return
    }
    form.hidden = false
    const { reports } = answer
    show(list, reports.length
      ? table(['Name', 'Groups and measures', 'Filter', 'Time zone', ''], reports.map((r) => reportRow(r, said, reload)), `${reports.length} saved report${reports.length === 1 ? '' : 's'}`)
      : el('p', { id: 'no-reports' }, 'No saved report in this store yet.'))
  }
  const form = reportForm(reload)
  show(main, el('h1', {}, 'Reports'),
    el('p', {}, 'Every saved report with its chart: the ', el('a', { href: '#/dashboard' }, 'Dashboard'), '.'),
    status, list, form)
  await reload()
}
