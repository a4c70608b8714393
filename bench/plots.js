'use strict'

// Vega-Lite specifications rendered to SVG in Node, without a browser or a
// canvas (vega's SVG renderer; text widths are estimated).

async function renderSvg (spec) {
  const vega = await import('vega')
  const vegaLite = await import('vega-lite')
  const compiled = vegaLite.compile({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', width: 480, height: 280, ...spec }).spec
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' })
  return view.toSVG()
}

module.exports = { renderSvg }
