'use strict'

// How a figure or a table column reads in report.md: one declaration per
// measure, { label, unit }, that the table header, the figure line, the
// plot's axis title and --compare all read. Each scenario declares its own
// (scenarios.js, `labels: { figures, columns }`); results.json keeps them
// beside the figures, so a report or a comparison can be written from the
// file alone. A key nobody declared (an older results.json) is put into
// words from its camelCase name, never printed as it is.
//
// A declaration:
//   label    words, capitalised: 'P99', 'Accepted statements/s'. A label of
//            a figure that is a map ({ sqlite: 2518, ferretdb: 4221 }) holds
//            {key}: one line per key ('Disk per statement, {key}').
//   unit     what the number counts, written after it: 'ms', 'statements/s'.
//            A header reads 'P99 (ms)'; when the label already holds the
//            unit ('Statements/s'), the header is the label alone.
//   percent  the value is a fraction (0.93), shown as a percentage (93 %).
//   none     the words for a figure that is null ('not reached').
//   better   'higher' or 'lower': how --compare reads a change.

// Measures most scenarios share; a scenario spreads the ones it uses and
// adds its own.
const COMMON = {
  engine: { label: 'Engine' },
  connections: { label: 'Connections', unit: 'connections' },
  batch: { label: 'Statements per request' },
  repetition: { label: 'Repetition' },
  statementsPerSec: { label: 'Statements/s', unit: 'statements/s', better: 'higher' },
  p50Ms: { label: 'P50', unit: 'ms', better: 'lower' },
  p99Ms: { label: 'P99', unit: 'ms', better: 'lower' },
  refused429: { label: '429 responses', unit: 'responses' },
  fiveXX: { label: '5xx responses', unit: 'responses', better: 'lower' },
  errors: { label: 'Errors and timeouts', unit: 'requests', better: 'lower' },
  generatorCpuShare: { label: 'Load generator CPU', unit: 'cores' }
}

function pick (...keys) {
  return Object.fromEntries(keys.map((k) => [k, COMMON[k]]))
}

const ACRONYMS = { lrs: 'LRS', cpu: 'CPU', rss: 'RSS', api: 'API', xx: 'xx', p50: 'P50', p90: 'P90', p99: 'P99' }

// 'lrsCpuMicrosPerStatement' -> { label: 'LRS CPU per statement', unit: 'µs' }:
// the fallback for keys nobody declared.
function inWords (key) {
  if (/\s/.test(key)) return { label: key, unit: null } // already words ('past Ideal (1.2 s)')
  let words = String(key)
    .replace(/MiB/g, 'Mib')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([a-z]{2,})([0-9])/g, '$1 $2')
    .replace(/([0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase())
  let unit = null
  const last = words[words.length - 1]
  if (last === 'ms') { unit = 'ms'; words.pop() } else if (last === 'mib') { unit = 'MiB'; words.pop() } else if (last === 'seconds' && words.length > 1) { unit = 's'; words.pop() }
  const micros = words.indexOf('micros')
  if (micros >= 0) { unit = 'µs'; words.splice(micros, 1) }
  words = words.join(' ').replace(/\bper sec$/, '/s').replace(/ \/s$/, '/s').replace(/\bfive xx\b/, '5xx').split(' ')
  const text = words.map((w) => ACRONYMS[w] || w).join(' ').replace(/^non /, 'non-')
  if (!unit && text.endsWith('/s')) unit = text.split(' ').pop()
  return { label: text.charAt(0).toUpperCase() + text.slice(1), unit }
}

function declared (declarations, key) {
  return (declarations && declarations[key]) || COMMON[key] || inWords(key)
}

// 'P99 (ms)', 'Statements/s'.
function header (decl) {
  if (!decl.unit || decl.percent) return decl.percent ? `${decl.label} (%)` : decl.label
  return decl.label.toLowerCase().includes(decl.unit.toLowerCase()) ? decl.label : `${decl.label} (${decl.unit})`
}

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
// A figure over repetitions (repetitions.js): { median, min, max }.
const isSpread = (v) => isPlainObject(v) && typeof v.median === 'number' && 'min' in v && 'max' in v && Object.keys(v).length === 3

function number (n) {
  const digits = Math.abs(n) >= 100 ? 0 : Math.abs(n) >= 10 ? 1 : 2
  return n.toLocaleString('en', { maximumFractionDigits: digits })
}

// A number with its unit, in words: '54,000 learners', '93.1 %', '0.77×'.
function withUnit (n, decl) {
  const value = decl.percent ? n * 100 : n
  const text = number(value)
  if (decl.percent) return `${text} %`
  if (!decl.unit) return text
  return decl.unit === '×' ? `${text}×` : `${text} ${decl.unit}`
}

function formatValue (value, decl, { runs = null } = {}) {
  if (value === null || value === undefined) return decl.none || 'not measured'
  if (typeof value === 'number') return withUnit(value, decl)
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  if (isSpread(value)) {
    const bare = (n) => withUnit(n, { ...decl, unit: decl.unit === '×' ? '×' : null })
    return `${withUnit(value.median, decl)} (median${runs ? ` of ${runs} runs` : ''}, from ${bare(value.min)} to ${bare(value.max)})`
  }
  if (Array.isArray(value)) return value.map((v) => formatValue(v, decl)).join(', ')
  if (isPlainObject(value)) return Object.entries(value).map(([k, v]) => `${k} ${formatValue(v, declared(null, k))}`).join(', ')
  return String(value)
}

// The figures of a section as a flat list, { key, label, decl, value }:
// a map becomes one entry per key (key 'learnersWhenP99.past Ideal (1.2 s)'),
// a { median, min, max } stays one entry. report.md and --compare read this.
function figureEntries (figures, declarations) {
  const out = []
  const walk = (key, label, value, decl) => {
    if (!isPlainObject(value) || isSpread(value)) { out.push({ key, label, decl, value }); return }
    for (const [k, v] of Object.entries(value)) {
      if (decl.label.includes('{key}')) {
        const text = decl.label.replace('{key}', k)
        walk(`${key}.${k}`, text, v, { ...decl, label: text })
      } else {
        // a template declared for a map, met one level down (an older
        // results.json nests the other way round): without its {key}
        const found = declared(declarations, k)
        const inner = found.label.includes('{key}') ? { ...found, label: found.label.replace(/,? *\{key\}/, '') } : found
        walk(`${key}.${k}`, `${label}: ${inner.label.charAt(0).toLowerCase()}${inner.label.slice(1)}`, v, inner)
      }
    }
  }
  for (const [key, value] of Object.entries(figures || {})) {
    const decl = declared(declarations, key)
    walk(key, decl.label, value, decl)
  }
  return out
}

// Settings in words: 'batches 1, 5, 20, 100; connections 10; duration 4'.
function settingsInWords (settings) {
  const value = (v) => (Array.isArray(v)
    ? v.map(value).join(', ')
    : isPlainObject(v) ? Object.entries(v).map(([k, x]) => `${k} ${value(x)}`).join(', ') : typeof v === 'number' ? v.toLocaleString('en') : String(v))
  return Object.entries(settings || {}).map(([k, v]) => `${inWords(k).label.toLowerCase()}${inWords(k).unit ? ` (${inWords(k).unit})` : ''} ${value(v)}`).join('; ')
}

// A table cell: numbers as in the header's unit (a percent column shows 93.1).
function cell (value, decl) {
  if (value === null || value === undefined) return '–'
  if (typeof value === 'number') return number(decl.percent ? value * 100 : value)
  return String(value)
}

module.exports = { COMMON, pick, inWords, declared, header, formatValue, figureEntries, settingsInWords, cell, isSpread, isPlainObject }
