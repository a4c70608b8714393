// One saved report (#/reports/<id>): run (POST /admin/reports/{id}/run),
// its table (the answer's columns, every cell as text) and its chart
// (chart.js), a note when the answer is truncated, Download CSV (the same
// run with Accept: text/csv, saved from a Blob URL) and the page's own
// address as the link to share (the person it is sent to signs in first).

import { api } from '../api.js'
import { el, show, errorText, clip, table } from '../dom.js'
import { reportChart } from '../chart.js'
import { describe } from './report-form.js'

const pathOf = (id) => '/admin/reports/' + encodeURIComponent(id)
const cellText = (v) => (v === null || v === undefined ? '' : String(v))

export function answerTable (answer) {
  return table(answer.columns, answer.rows.map((r) => el('tr', {}, r.map((v) => el('td', {}, clip(cellText(v)))))),
    `${answer.rows.length} row${answer.rows.length === 1 ? '' : 's'}; ${answer.source !== 'statements' ? `${answer.statementsCounted} statements counted from the store's hourly counts` : `${answer.statementsCounted} of ${answer.statementsRead} statements read counted`}, in ${answer.tookMs} ms`)
}

export function truncatedNote (answer) {
  if (!answer.truncated) return null
  return el('p', { class: 'note', id: 'truncated' }, `Truncated: the answer shows ${answer.rows.length} of ${answer.groups} groups (the report's maxGroups), or stopped before reading every statement. A narrower filter shows the rest.`)
}

// A file name from a report's name: letters, digits, - and _ only.
const fileName = (name) => (String(name).replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80) || 'report') + '.csv'

function downloadButton (saved, said) {
  const button = el('button', { type: 'button', class: 'secondary', id: 'download-csv' }, 'Download CSV')
  button.addEventListener('click', async () => {
    try {
      const blob = await api(pathOf(saved.id) + '/run', { method: 'POST', accept: 'text/csv', asBlob: true })
      const url = URL.createObjectURL(blob)
      const a = document.createElement('a') // (el() links within the console only; this is the file just read)
      a.href = url
      a.download = fileName(saved.name)
      document.body.append(a)
      a.click()
      a.remove()
      setTimeout(() => URL.revokeObjectURL(url), 10000)
      said(['Downloaded ', el('code', {}, a.download), '.'])
    } catch (err) {
      said(errorText(err))
    }
  })
  return button
}

function shareLink () {
  const href = window.location.href
  const status = el('span', { role: 'status', id: 'share-status' })
  const text = el('code', { id: 'share-link' }, href)
  const copy = el('button', { type: 'button', class: 'secondary', id: 'copy-link' }, 'Copy link')
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(href)
      status.textContent = ' Copied.'
    } catch {
      window.getSelection().selectAllChildren(text)
      status.textContent = ' Selected: press Ctrl+C.'
    }
  })
  return el('p', { class: 'share' }, 'Link to this report: ', text, ' ', copy, status)
}

export async function render (main, params, { id }) {
  show(main, el('h1', {}, 'Report'), el('p', {}, 'Running…'))
  let saved
  try {
    saved = await api(pathOf(id))
  } catch (err) {
    show(main, el('h1', {}, 'Report'), el('p', {}, el('a', { href: '#/reports' }, 'All reports')), el('div', { id: 'report-error' }, errorText(err)))
    return
  }
  const status = el('div', { role: 'status', id: 'report-status' })
  const said = (content) => show(status, content)
  const { what, filter, timeZone } = describe(saved.report)
  const result = el('section', { 'aria-label': 'Result', id: 'report-result' }, el('p', {}, 'Running…'))
  show(main, el('h1', {}, clip(saved.name, 200)),
    el('p', {}, el('a', { href: '#/reports' }, 'All reports'), ' · ', el('a', { href: '#/dashboard' }, 'Dashboard')),
    el('p', { id: 'report-what' }, what, '; ', clip(filter), '; time zone ', timeZone),
    el('p', {}, downloadButton(saved, said)), status, shareLink(), result)
  try {
    const answer = await api(pathOf(id) + '/run', { method: 'POST' })
    const chart = reportChart(answer, { title: saved.name })
    show(result, truncatedNote(answer), chart ? el('figure', { class: 'card' }, chart) : null, answerTable(answer))
  } catch (err) {
    show(result, el('div', { id: 'report-error' }, errorText(err)))
  }
}
