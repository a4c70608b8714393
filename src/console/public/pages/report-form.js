// The Reports page's form that saves one (POST /admin/reports): a name;
// either groups (up to two dimensions) and measures, or a ready-made shape
// (completion funnel, learner progress); the filter (verb, activity,
// grouping, from, to); the time zone of the time buckets. The lists are
// src/reports/report-definition.js's; the LRS checks the rest and its
// refusal is shown as its message. Also what a saved report groups and
// measures, in words (describe).

import { api } from '../api.js'
import { el, show, field, onSubmit } from '../dom.js'

export const DIMENSIONS = ['verb', 'activity', 'activityType', 'learner', 'registration', 'parent', 'grouping', 'category', 'platform', 'success', 'completion', 'hour', 'day', 'week', 'month']
const STATS = ['count', 'mean', 'min', 'max', 'p50', 'p90', 'p95', 'p99']
export const MEASURES = ['statements', 'learners', 'registrations', 'firstTimestamp', 'lastTimestamp',
  ...STATS.map((s) => `score.${s}`), ...['sum', ...STATS.slice(1)].map((s) => `duration.${s}`)]
const SHAPES = [['', 'Groups and measures (below)'], ['completionFunnel', 'Completion funnel (per activity: launched, completed, passed)'], ['learnerProgress', 'Learner progress (per learner)']]
const FILTER_FIELDS = [['verb', 'Verb IRI'], ['activity', 'Activity IRI'], ['grouping', 'Grouping activity IRI (a course)'], ['from', 'From (ISO 8601, e.g. 2026-01-01T00:00:00Z)'], ['to', 'To (before)']]

function dimensionChoice (label, name) {
  return el('label', {}, label, ' ', el('select', { name }, el('option', { value: '' }, '—'), DIMENSIONS.map((d) => el('option', { value: d }, d))))
}

// The report the form says.
function requestOf (form) {
  const value = (name) => form.elements[name].value.trim()
  const report = {}
  const filter = {}
  for (const [name] of FILTER_FIELDS) if (value(name)) filter[name] = value(name)
  if (Object.keys(filter).length) report.filter = filter
  if (value('timeZone')) report.timeZone = value('timeZone')
  if (value('shape')) {
    report.shape = value('shape')
  } else {
    const groupBy = [value('groupBy1'), value('groupBy2')].filter(Boolean)
    if (groupBy.length) report.groupBy = [...new Set(groupBy)]
    report.measures = [...form.querySelectorAll('input[name=measure]:checked')].map((i) => i.value)
    if (!report.measures.length) throw new Error('Choose at least one measure.')
  }
  return { name: value('name'), report }
}

export function describe (report) {
  const f = report.filter || {}
  const filter = Object.entries(f).map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : v}`).join('; ')
  const what = report.shape
    ? (report.shape === 'completionFunnel' ? 'completion funnel' : 'learner progress')
    : `${(report.measures || []).join(', ')}${report.groupBy && report.groupBy.length ? ' by ' + report.groupBy.join(' and ') : ''}`
  return { what, filter: filter || 'every statement', timeZone: report.timeZone || 'UTC' }
}

export function reportForm (onSaved) {
  const message = el('div', { 'aria-live': 'polite', id: 'create-report-message' })
  const measures = el('fieldset', { class: 'measures' }, el('legend', {}, 'Measures'),
    MEASURES.map((m) => el('label', { class: 'flag' }, el('input', { type: 'checkbox', name: 'measure', value: m }), ' ', m)))
  const groups = el('fieldset', {}, el('legend', {}, 'Group by (up to two)'), dimensionChoice('First', 'groupBy1'), dimensionChoice('Then', 'groupBy2'))
  const shape = el('select', { name: 'shape' }, SHAPES.map(([value, text]) => el('option', { value }, text)))
  const form = el('form', { class: 'card', id: 'create-report', 'aria-label': 'Save a report' },
    el('h2', {}, 'Save a report'),
    el('fieldset', {}, el('legend', {}, 'Report'),
      field('Name', { name: 'name', required: true, maxlength: '200', autocomplete: 'off' }),
      el('label', {}, 'Kind ', shape),
      field('Time zone', { name: 'timeZone', placeholder: 'UTC', autocomplete: 'off' })),
    groups, measures,
    el('fieldset', {}, el('legend', {}, 'Which statements (a shape reads its activity here)'),
      FILTER_FIELDS.map(([name, label]) => field(label, { name, autocomplete: 'off' }))),
    el('button', { type: 'submit' }, 'Save report'),
    message)
  const showKind = () => { groups.hidden = measures.hidden = Boolean(shape.value) }
  shape.addEventListener('change', showKind)
  form.addEventListener('reset', () => setTimeout(showKind))
  onSubmit(form, message, {
    requestOf,
    async send (body) {
      const saved = await api('/admin/reports', { method: 'POST', body })
      show(message, el('p', { role: 'status' }, 'Saved ', el('bdi', {}, saved.name), ': ', el('a', { href: '#/reports/' + encodeURIComponent(saved.id) }, 'open it'), '.'))
      form.reset()
      await onSaved(saved)
    }
  })
  return form
}
