'use strict'

// Vega-Lite specifications rendered to SVG in Node, without a browser or a
// canvas (vega's SVG renderer; text widths are estimated). Every plot gets
// its title, and every quantitative axis of a line or point chart is fitted
// to the data (its extent plus a small margin, not a round number far
// beyond it), unless the spec sets a domain itself.

const MARGIN = 0.05 // of the data's extent, each side
const UNFITTED_MARKS = new Set(['bar', 'area', 'rect', 'arc']) // they start at zero

const markType = (spec) => (typeof spec.mark === 'string' ? spec.mark : spec.mark && spec.mark.type)

function fittedDomain (values, { log = false } = {}) {
  const lo = Math.min(...values)
  const hi = Math.max(...values)
  if (log) {
    const factor = Math.max(1.1, (hi / lo) ** MARGIN)
    return [lo / factor, hi * factor]
  }
  const margin = (hi - lo || Math.abs(hi) || 1) * MARGIN
  return [lo >= 0 && lo - margin < 0 ? 0 : lo - margin, hi + margin]
}

// The unit specs of one shared scale: a single view, or the layers of a
// layered one (which share their scales).
function fitView (spec, inherited) {
  const views = spec.layer ? spec.layer.map((l) => ({ view: l, data: l.data || spec.data || inherited })) : [{ view: spec, data: spec.data || inherited }]
  for (const channel of ['x', 'y']) {
    const users = views.filter(({ view }) => view.encoding && view.encoding[channel] && view.encoding[channel].field && view.encoding[channel].type === 'quantitative')
    if (!users.length) continue
    if (users.some(({ view }) => UNFITTED_MARKS.has(markType(view)) || (view.encoding[channel].scale && view.encoding[channel].scale.domain))) continue
    const values = users.flatMap(({ view, data }) => ((data && data.values) || []).map((row) => row[view.encoding[channel].field]))
      .filter((v) => typeof v === 'number' && Number.isFinite(v))
    const log = users.some(({ view }) => view.encoding[channel].scale && view.encoding[channel].scale.type === 'log')
    const usable = log ? values.filter((v) => v > 0) : values
    if (!usable.length) continue
    const domain = fittedDomain(usable, { log })
    const scale = log ? { domain, nice: false } : { domain, nice: false, zero: false }
    for (const { view } of users) view.encoding[channel] = { ...view.encoding[channel], scale: { ...view.encoding[channel].scale, ...scale } }
  }
}

// A copy of `spec` with its axes fitted; walks concatenations.
function fitAxes (spec, inherited = null) {
  const copy = structuredClone(spec)
  const walk = (s, data) => {
    const own = s.data || data
    for (const key of ['vconcat', 'hconcat', 'concat']) if (s[key]) for (const part of s[key]) walk(part, own)
    if (s.layer || s.mark) fitView(s, own)
  }
  walk(copy, inherited)
  return copy
}

const COMPOSITE = ['vconcat', 'hconcat', 'concat', 'facet', 'repeat']

async function renderSvg (spec, { title = null } = {}) {
  const vega = await import('vega')
  const vegaLite = await import('vega-lite')
  const size = COMPOSITE.some((k) => spec[k]) ? {} : { width: 480, height: 280 }
  const full = { $schema: 'https://vega.github.io/schema/vega-lite/v6.json', ...size, ...(title && { title }), ...fitAxes(spec) }
  const view = new vega.View(vega.parse(vegaLite.compile(full).spec), { renderer: 'none' })
  return view.toSVG()
}

module.exports = { renderSvg, fitAxes, fittedDomain }
