// A report's answer ({ columns, rows }) as a chart, inline SVG drawn here
// (no charting library, nothing from another host): the first numeric
// measure, as a line along the time bucket when a group column is one
// (hour, day, week, month; a second group column makes one line per value
// of it, the first few), else as bars, one per row. Every label is a text
// node (createTextNode via append): a verb IRI or a name in a report is
// shown as its characters, never parsed.

const SVG = 'http://www.w3.org/2000/svg'
const BUCKETS = ['hour', 'day', 'week', 'month']
const WIDTH = 720
const HEIGHT = 220
const PAD = { left: 48, right: 12, top: 12, bottom: 34 }
const MAX_BARS = 60
const MAX_SERIES = 6

function svg (tag, attrs = {}, ...children) {
  const e = document.createElementNS(SVG, tag)
  for (const [name, value] of Object.entries(attrs)) e.setAttribute(name, String(value))
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined) e.append(c) // strings become Text nodes
  return e
}

const isNumber = (v) => typeof v === 'number' && Number.isFinite(v)
const cut = (s, max = 18) => (s.length > max ? s.slice(0, max - 1) + '…' : s)
const textOf = (v) => (v === null || v === undefined ? '—' : String(v))

// Which column is measured (the first whose values are numbers), which
// columns group: { value, groups } or null when no column is numeric.
function columnsOf ({ columns, rows }) {
  for (let i = 0; i < columns.length; i++) {
    const values = rows.map((r) => r[i]).filter((v) => v !== null && v !== undefined)
    if (values.length && values.every(isNumber)) return { value: i, groups: columns.slice(0, i).map((_, j) => j) }
  }
  return null
}

function yAxis (max) {
  const top = svg('text', { x: PAD.left - 4, y: PAD.top + 4, class: 'axis', 'text-anchor': 'end' }, formatNumber(max))
  const zero = svg('text', { x: PAD.left - 4, y: HEIGHT - PAD.bottom, class: 'axis', 'text-anchor': 'end' }, '0')
  const line = svg('line', { x1: PAD.left, y1: HEIGHT - PAD.bottom, x2: WIDTH - PAD.right, y2: HEIGHT - PAD.bottom, class: 'axis-line' })
  return [top, zero, line]
}

function formatNumber (n) {
  return Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(4)))
}

const plotHeight = HEIGHT - PAD.top - PAD.bottom
const plotWidth = WIDTH - PAD.left - PAD.right
const yOf = (v, max) => (HEIGHT - PAD.bottom - (Math.max(0, v) / max) * plotHeight).toFixed(1)

function lineChart (answer, value, time, other) {
  const buckets = [...new Set(answer.rows.map((r) => textOf(r[time])))].sort()
  const series = new Map() // other value's text -> Map(bucket -> value)
  for (const r of answer.rows) {
    const name = other === null ? answer.columns[value] : textOf(r[other])
    if (!series.has(name)) {
      if (series.size >= MAX_SERIES) continue
      series.set(name, new Map())
    }
    const points = series.get(name)
    const b = textOf(r[time])
    if (isNumber(r[value])) points.set(b, (points.get(b) || 0) + r[value])
  }
  const max = Math.max(1, ...[...series.values()].flatMap((m) => [...m.values()]))
  const step = buckets.length > 1 ? plotWidth / (buckets.length - 1) : 0
  const xOf = (i) => (PAD.left + (buckets.length > 1 ? i * step : plotWidth / 2)).toFixed(1)
  const lines = [...series.entries()].map(([name, points], s) => {
    const coords = buckets.map((b, i) => [xOf(i), yOf(points.get(b) || 0, max), b, points.get(b) || 0])
    return svg('g', { class: `series series-${s}` },
      svg('title', {}, name),
      svg('polyline', { points: coords.map(([x, y]) => `${x},${y}`).join(' '), class: 'line' }),
      coords.map(([x, y, b, v]) => svg('circle', { cx: x, cy: y, r: 3, class: 'point' }, svg('title', {}, `${name}, ${b}: ${formatNumber(v)}`))))
  })
  const labelAt = [...new Set([0, Math.floor((buckets.length - 1) / 2), buckets.length - 1])]
  const labels = labelAt.map((i) => svg('text', { x: xOf(i), y: HEIGHT - PAD.bottom + 16, class: 'axis', 'text-anchor': i === 0 && buckets.length > 1 ? 'start' : i === buckets.length - 1 && buckets.length > 1 ? 'end' : 'middle' }, buckets[i]))
  const legend = other === null ? [] : [...series.keys()].map((name, s) => svg('text', { x: PAD.left + s * (plotWidth / MAX_SERIES), y: HEIGHT - 4, class: `axis legend series-${s}` }, cut(name, 22)))
  return { parts: [...yAxis(max), ...lines, ...labels, ...legend], kind: 'line', max }
}

function barChart (answer, value, groups) {
  const rows = answer.rows.slice(0, MAX_BARS)
  const labelOf = (r) => groups.length ? groups.map((g) => textOf(r[g])).join(' · ') : answer.columns[value]
  const max = Math.max(1, ...rows.map((r) => (isNumber(r[value]) ? r[value] : 0)))
  const step = plotWidth / Math.max(1, rows.length)
  const bars = rows.map((r, i) => {
    const v = isNumber(r[value]) ? r[value] : 0
    const y = yOf(v, max)
    return svg('rect', { x: (PAD.left + i * step + 1).toFixed(1), y, width: Math.max(1, step - 2).toFixed(1), height: (HEIGHT - PAD.bottom - y).toFixed(1), class: 'bar' },
      svg('title', {}, `${labelOf(r)}: ${formatNumber(v)}`))
  })
  // a label under a bar where there is room for one, else under the first and last
  const every = rows.length <= 8 ? 1 : Math.max(1, rows.length - 1)
  const labels = rows.map((r, i) => (i % every === 0 || i === rows.length - 1
    ? svg('text', { x: (PAD.left + i * step + step / 2).toFixed(1), y: HEIGHT - PAD.bottom + 16, class: 'axis', 'text-anchor': 'middle' }, cut(labelOf(r), rows.length <= 4 ? 40 : 14))
    : null)).filter(Boolean)
  return { parts: [...yAxis(max), ...bars, ...labels], kind: 'bar', max }
}

// The chart of `answer`, or null when it has no row or no numeric column.
export function reportChart (answer, { title = '' } = {}) {
  if (!answer || !answer.rows || !answer.rows.length) return null
  const picked = columnsOf(answer)
  if (!picked) return null
  const { value, groups } = picked
  const time = groups.find((g) => BUCKETS.includes(answer.columns[g]))
  const other = time === undefined ? null : (groups.find((g) => g !== time) ?? null)
  const { parts, kind, max } = time !== undefined ? lineChart(answer, value, time, other) : barChart(answer, value, groups)
  const by = groups.map((g) => answer.columns[g]).join(' and ')
  const label = `${title ? title + ': ' : ''}${answer.columns[value]}${by ? ' by ' + by : ''}, at most ${formatNumber(max)}`
  return svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': label, class: 'chart report-chart', 'data-kind': kind }, ...parts)
}
