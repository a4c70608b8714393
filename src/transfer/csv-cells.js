'use strict'

// The cells of a CSV for spreadsheets (the statement export,
// statement-csv.js; a report's table, src/reports/report-csv.js). RFC
// 4180: a cell quoted when it holds a comma, a quote, CR or LF, its quotes
// doubled.
//
// Formula injection (OWASP "CSV Injection"): a spreadsheet runs a cell that
// starts with =, +, -, @, a tab or CR as a formula, and statements are
// written by whoever holds a credential. Every text cell that starts so is
// written with a single quote (') before it, which spreadsheets show as
// text. Numbers are written as they are: a cell that is a number alone is
// read as a number and never run, so a raw score of -3 stays the number -3.

const QUOTE = 34
const COMMA = 44
const CR = 13
const LF = 10

// =, +, -, @, tab, CR
function startsFormula (c) {
  return c === 61 || c === 43 || c === 45 || c === 64 || c === 9 || c === CR
}

// A text cell: neutralised, then quoted when it must be.
function textCell (value) {
  if (value === undefined || value === null || value === '') return ''
  let s = typeof value === 'string' ? value : String(value)
  if (startsFormula(s.charCodeAt(0))) s = "'" + s
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c === QUOTE || c === COMMA || c === CR || c === LF) return '"' + s.replaceAll('"', '""') + '"'
  }
  return s
}

// A number of the statement, as it is (see the top of this file). The
// statement was validated, so anything else is not there: an empty cell.
function numberCell (value) {
  return typeof value === 'number' ? String(value) : ''
}

function booleanCell (value) {
  return value === true ? 'true' : value === false ? 'false' : ''
}

// An extension's value: numbers and booleans as they are, strings as text,
// anything else (objects, arrays, null) as its JSON text.
function valueCell (value) {
  if (value === undefined) return ''
  if (typeof value === 'number') return String(value)
  if (typeof value === 'boolean') return booleanCell(value)
  return textCell(typeof value === 'string' ? value : JSON.stringify(value))
}

module.exports = { textCell, numberCell, booleanCell, valueCell }
