// Overview, the console's landing page: statements stored, the last hour
// and each hour of the last 24 (a bar chart), the top verbs and object
// activities and the statements of each credential over those 24 hours
// (GET /admin/overview), the forwarding upstreams' queues
// (GET /admin/forwarding/upstreams) and the workers up (the distinct
// `worker` labels of GET /metrics). Verb and activity IRIs and verb
// displays come from statements: shown as text, linked only to the
// console's own filter.

import { api } from '../api.js'
import { el, show, table, errorText, clip } from '../dom.js'
import { languageText } from '../language.js'

const SVG = 'http://www.w3.org/2000/svg'
const HOUR_MS = 3600000

function svg (tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG, tag)
  for (const [name, value] of Object.entries(attrs)) e.setAttribute(name, String(value))
  for (const c of children) e.append(c)
  return e
}

// One bar per hour, its count in a <title> (a tooltip) and in the table
// beside the chart for screen readers.
function hourChart (hours) {
  const width = 720
  const height = 160
  const max = Math.max(1, ...hours.map((h) => h.count))
  const step = width / hours.length
  const bars = hours.map((h, i) => {
    const barHeight = Math.round(h.count / max * (height - 20))
    return svg('rect', { x: (i * step + 1).toFixed(1), y: height - barHeight, width: Math.max(1, step - 2).toFixed(1), height: barHeight, class: 'bar' },
      svg('title', {}, `${new Date(h.start).toISOString().slice(11, 16)} UTC: ${h.count}`))
  })
  const label = (i) => svg('text', { x: (i * step).toFixed(1), y: 12, class: 'axis' }, new Date(hours[i].start).toISOString().slice(11, 16))
  return svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `Statements per hour over the last ${hours.length} hours, at most ${max}`, class: 'chart' },
    ...bars, label(0), label(Math.floor(hours.length / 2)))
}

function workersOf (metricsText) {
  const workers = new Set()
  for (const m of metricsText.matchAll(/^process_cpu_user_seconds_total\{[^}]*worker="([^"]*)"/gm)) workers.add(m[1])
  return workers.size || null
}

const stat = (name, value) => el('div', {}, el('dt', {}, name), el('dd', {}, value))

// A top verb: its display (from the newest statement with it) as the link
// to the statements with it, the IRI beneath; the IRI alone when no
// statement gave it a display.
function verbCell (v) {
  const name = languageText(v.display).trim()
  const link = el('a', { href: '#/statements?verb=' + encodeURIComponent(v.verb) }, clip(name || v.verb))
  return el('td', { class: 'iri' }, link, name ? el('span', { class: 'verb-iri' }, clip(v.verb)) : null)
}

export async function render (main) {
  show(main, el('h1', {}, 'Overview'), el('p', { role: 'status' }, 'Loading…'))
  let overview, upstreams, workers
  try {
    const metrics = api('/metrics', { asText: true }).then(workersOf, () => null)
    ;[overview, { upstreams }, workers] = await Promise.all([api('/admin/overview'), api('/admin/forwarding/upstreams'), metrics])
  } catch (err) {
    show(main, el('h1', {}, 'Overview'), errorText(err))
    return
  }
  const { hours } = overview
  const lastHour = hours.filter((h) => Date.parse(h.start) > Date.now() - 2 * HOUR_MS).slice(-1)[0]
  const inRange = hours.reduce((n, h) => n + h.count, 0)
  const queued = upstreams.reduce((n, u) => n + u.queued, 0)
  show(main,
    el('h1', {}, 'Overview'),
    el('dl', { class: 'stats' },
      stat('Statements stored', overview.total.toLocaleString('en')),
      stat('This hour', (lastHour ? lastHour.count : 0).toLocaleString('en')),
      stat('Last 24 hours', inRange.toLocaleString('en')),
      stat('Forwarding queue', upstreams.length ? queued.toLocaleString('en') : 'off'),
      stat('Workers up', workers === null ? '—' : String(workers))),
    el('h2', {}, 'Statements per hour'),
    el('figure', { class: 'card' }, hourChart(hours),
      el('figcaption', {}, `Each hour (UTC) from ${overview.since} to ${overview.until}; the current hour is the last bar.`)),
    el('div', { class: 'columns' },
      el('section', {}, el('h2', {}, 'Top verbs'),
        overview.verbs.length
          ? table(['Verb', 'Statements'], overview.verbs.map((v) => el('tr', {}, verbCell(v), el('td', {}, v.count.toLocaleString('en')))), 'Last 24 hours')
          : el('p', {}, 'None in the last 24 hours.')),
      el('section', {}, el('h2', {}, 'Top activities'),
        overview.activities.length
          ? table(['Activity', 'Statements'], overview.activities.map((a) => el('tr', {},
            el('td', { class: 'iri' }, el('a', { href: '#/statements?activity=' + encodeURIComponent(a.activity) }, clip(a.activity))), el('td', {}, a.count.toLocaleString('en')))), 'Object activities, last 24 hours')
          : el('p', {}, 'None in the last 24 hours.'))),
    el('h2', {}, 'Statements per credential'),
    overview.credentials.length
      ? table(['Credential', 'Statements'], overview.credentials.map((c) => el('tr', {},
        el('td', {}, c.key === null ? el('em', {}, 'other authority (imported, or a revoked credential)') : el('code', {}, c.key)), el('td', {}, c.count.toLocaleString('en')))), 'Last 24 hours')
      : el('p', {}, 'None in the last 24 hours.'),
    el('h2', {}, 'Forwarding'),
    upstreams.length
      ? table(['Upstream', 'Queued', 'Oldest queued (lag)', 'Dead letters'], upstreams.map((u) => el('tr', {},
        el('td', {}, el('code', {}, u.id)), el('td', {}, u.queued.toLocaleString('en')),
        el('td', {}, u.oldestEnqueuedAt ? `${u.oldestEnqueuedAt} (${Math.round((Date.now() - Date.parse(u.oldestEnqueuedAt)) / 1000)} s)` : '—'),
        el('td', {}, u.deadLetters.toLocaleString('en')))))
      : el('p', {}, 'No upstream: this store\'s statements are not forwarded.'))
}
