'use strict'

// A report's table as CSV for a spreadsheet: its columns as the header row,
// then its rows, each cell as the statement export writes one (RFC 4180,
// formula injection neutralised: src/transfer/csv-cells.js).

const { valueCell } = require('../transfer/csv-cells')

function reportCsv ({ columns, rows }) {
  const cell = (v) => v === null ? '' : valueCell(v) // a group without a value (no registration), a measure of nothing
  const lines = [columns.map(cell).join(',')]
  for (const row of rows) lines.push(row.map(cell).join(','))
  return lines.join('\r\n') + '\r\n'
}

module.exports = { reportCsv }
