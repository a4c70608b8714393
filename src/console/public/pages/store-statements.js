// A store's statements on the Stores page (stores.js): export to an
// NDJSON file, import of such a file, and deleting those stored in a time
// range, each through the /admin/statements API in that store
// (X-LRS-Store). An import's reasons are anyone's text: shown as text.

import { api } from '../api.js'
import { el, show, field, table, errorText, bytes, typedConfirmation } from '../dom.js'

// An export is held in the page whole before it is saved: past this many
// statements (about 2 KB each) the page says to export from a shell instead.
const EXPORT_IN_PAGE = 200000

// The store's statements as an NDJSON file the browser saves.
async function exportStore (s, out) {
  show(out, el('p', { role: 'status' }, 'Exporting ', el('code', {}, s.id), '…'))
  try {
    const blob = await api('/admin/statements/export', { store: s.id, asBlob: true })
    const link = document.createElement('a') // a blob: address, made here: el() links to the console's pages only
    link.href = URL.createObjectURL(blob)
    link.download = `${s.id}-statements.ndjson`
    document.body.append(link)
    link.click()
    link.remove()
    setTimeout(() => URL.revokeObjectURL(link.href), 60000)
    show(out, el('p', { role: 'status', id: 'store-exported' }, 'Exported ', el('code', {}, s.id), `: ${link.download}, ${bytes(blob.size)}.`))
  } catch (err) {
    show(out, errorText(err))
  }
}

// An NDJSON file (an export) into the store: what was stored, what it held
// already, and the lines refused with why.
function importForm (s, out, reload) {
  const file = el('input', { type: 'file', name: 'file', accept: '.ndjson,.jsonl,application/x-ndjson', required: true })
  const result = el('div', { 'aria-live': 'polite' })
  const form = el('form', { class: 'card', id: 'import-statements', 'aria-label': 'Import statements into ' + s.id },
    el('h2', {}, 'Import statements into ', el('code', {}, s.id)),
    el('p', {}, 'An NDJSON file, one statement a line, as an export writes: ids, stored and authority are kept, statements the store holds are left as they are (importing twice stores nothing twice), and the lines that cannot be stored are listed. Imported statements are not forwarded. For files of more than a few hundred thousand statements, use lrs import.'),
    el('label', {}, 'File', ' ', file), ' ',
    el('button', { type: 'submit' }, 'Import'),
    result)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    if (!file.files.length) return
    show(result, el('p', { role: 'status' }, 'Importing…'))
    try {
      const done = await api('/admin/statements/import', { method: 'POST', store: s.id, file: file.files[0], type: 'application/x-ndjson' })
      show(result, el('div', { id: 'import-result', role: 'status' },
        el('p', {}, `Stored ${done.stored}, held already ${done.existing}, rejected ${done.rejected}.`),
        done.rejects.length ? table(['Line', 'Why'], done.rejects.map((r) => el('tr', {}, el('td', {}, String(r.line)), el('td', {}, r.reason))), done.rejected > done.rejects.length ? `The first ${done.rejects.length} rejected` : 'Rejected') : null))
      await reload()
    } catch (err) {
      show(result, errorText(err))
    }
  })
  show(out, form)
}

// A time the person typed (an ISO 8601 date or date and time, UTC unless
// it says otherwise) as the API's timestamp, or throws.
function instant (text, name) {
  const t = text.trim()
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(t) ? t + 'T00:00:00Z' : /[zZ]|[+-]\d{2}:?\d{2}$/.test(t) ? t : t + 'Z')
  if (Number.isNaN(ms)) throw new Error(`${name}: not a date or time (2026-01-31 or 2026-01-31T12:00:00Z)`)
  return new Date(ms).toISOString()
}

// The store's statements stored after `since` and at or before `until`:
// how many would go, then the store's id typed to confirm.
function deleteRangeForm (s, out, reload) {
  const result = el('div', { 'aria-live': 'polite' })
  const form = el('form', { class: 'card', id: 'delete-statements', 'aria-label': 'Delete statements of ' + s.id + ' by stored time' },
    el('h2', {}, 'Delete statements of ', el('code', {}, s.id), ' by stored time'),
    el('p', {}, 'The statements stored after the first time (empty: from the first) and at or before the second, voided ones included, with their voiding statements and the targets of voiding ones, attachments no other statement uses and their forwarding entries. Times in UTC unless they say otherwise.'),
    field('Stored after', { name: 'since', placeholder: '2026-01-01', autocomplete: 'off' }),
    field('Stored at or before', { name: 'until', required: true, placeholder: '2026-02-01T00:00:00Z', autocomplete: 'off' }),
    el('button', { type: 'submit' }, 'Preview'),
    result)
  form.addEventListener('submit', async (event) => {
    event.preventDefault()
    let query
    try {
      query = { until: instant(form.elements.until.value, 'Stored at or before') }
      if (form.elements.since.value.trim()) query.since = instant(form.elements.since.value, 'Stored after')
      const { wouldRemove } = await api('/admin/statements/deletion', { query, store: s.id })
      // a button of its own: this form's submit is the preview
      const confirm = typedConfirmation(s.id, 'Store id', 'Delete them', { type: 'button' })
      confirm.button.addEventListener('click', async () => {
        if (!confirm.confirmed()) return
        try {
          const { removed } = await api('/admin/statements', { method: 'DELETE', query, store: s.id })
          show(result, el('p', { role: 'status', id: 'statements-deleted' }, `Deleted ${removed.statements} statements, ${removed.attachments} attachments, ${removed.forwardingEntries} forwarding entries.`))
          await reload()
        } catch (err) {
          show(result, errorText(err))
        }
      })
      show(result, el('div', { id: 'deletion-preview' },
        el('p', {}, `This would remove ${wouldRemove.statements} statements (${wouldRemove.outsideTheRange} of them stored outside the range, going with ones in it). It cannot be undone: type `, el('code', {}, s.id), ' to confirm.'),
        confirm.field, ' ', confirm.button))
    } catch (err) {
      show(result, errorText(err))
    }
  })
  show(out, form)
}

// The buttons of store `s`'s row; what they open goes into `out`.
export function statementActions (s, out, reload) {
  const exporting = s.statements > EXPORT_IN_PAGE
    ? el('span', {}, 'Export: too large for the page; lrs export --store ', s.id)
    : el('button', { type: 'button', class: 'secondary', 'data-export': s.id, onclick: () => exportStore(s, out) }, 'Export')
  return [exporting, ' ',
    el('button', { type: 'button', class: 'secondary', 'data-import': s.id, onclick: () => importForm(s, out, reload) }, 'Import…'), ' ',
    el('button', { type: 'button', class: 'secondary', 'data-delete-range': s.id, onclick: () => deleteRangeForm(s, out, reload) }, 'Delete statements…')]
}
