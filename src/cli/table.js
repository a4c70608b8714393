'use strict'

// Rows as aligned columns for a terminal: headers, then one line a row.
function formatTable (headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)))
  const line = (cells) => cells.map((c, i) => (i === cells.length - 1 ? String(c) : String(c).padEnd(widths[i]))).join('  ')
  return [line(headers), ...rows.map(line)].join('\n') + '\n'
}

module.exports = { formatTable }
