'use strict'

// String forms xAPI requires, as patterns shared by the schemas and the
// assert* rules. Each cites the 1.0.3 Data section it implements.

// Data 4.2 / RFC 3987: an absolute IRI needs a scheme. We check the scheme
// and the absence of characters an IRI can never contain.
const IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`]*$/

// Data 2.4.1: UUID in the RFC 4122 string form.
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

// Data 4.6: ISO 8601 duration; weeks stand alone ("P4W1D" is invalid).
const DURATION = /^P(?:\d+(?:[.,]\d+)?W|(?!$)(\d+(?:[.,]\d+)?Y)?(\d+(?:[.,]\d+)?M)?(\d+(?:[.,]\d+)?D)?(T(?=\d)(\d+(?:[.,]\d+)?H)?(\d+(?:[.,]\d+)?M)?(\d+(?:[.,]\d+)?S)?)?)$/

// Data 4.5: ISO 8601 date-time (extended or basic form) with optional zone.
// "-00", "-0000" and "-00:00" offsets are rejected (Data 4.5.s1.b3).
const TIMESTAMP = /^(\d{4})-?(\d{2})-?(\d{2})T(\d{2}):?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/

// RFC 5646 language tag (the well-formed grammar, without the registry).
const LANGUAGE_TAG = new RegExp('^(?:' +
  '(?:[A-Za-z]{2,3}(?:-[A-Za-z]{3}){0,3}|[A-Za-z]{4}|[A-Za-z]{5,8})' + // language
  '(?:-[A-Za-z]{4})?' + // script
  '(?:-(?:[A-Za-z]{2}|\\d{3}))?' + // region
  '(?:-(?:[A-Za-z0-9]{5,8}|\\d[A-Za-z0-9]{3}))*' + // variants
  '(?:-[0-9A-WY-Za-wy-z](?:-[A-Za-z0-9]{2,8})+)*' + // extensions
  '(?:-[Xx](?:-[A-Za-z0-9]{1,8})+)?' + // private use
  '|[Xx](?:-[A-Za-z0-9]{1,8})+' + // private use only
  '|[Ii]-[A-Za-z]{3,8}|[Ii]-default|[Ii]-mingo|[Ee][Nn]-GB-oed|[Ss]gn-[A-Za-z]{2}-[A-Za-z]{2,3}' + // grandfathered (part)
  ')$')

const MBOX = /^mailto:[^@\s]+@[^@\s]+$/
const SHA1_HEX = /^[0-9a-fA-F]{40}$/
const SHA2_HEX = /^[0-9a-fA-F]{56,128}$/

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function daysIn (year, month) {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]
}

// Checks the fields by hand rather than through Date.parse, which costs
// more than the rest of the check and yet takes February 30 (as March 2).
function isValidTimestamp (value) {
  const m = TIMESTAMP.exec(value)
  if (!m) return false
  const year = +m[1]
  const month = +m[2]
  const day = +m[3]
  const hour = +m[4]
  const minute = +m[5]
  const second = m[6] === undefined ? 0 : +m[6]
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return false
  const zone = m[8]
  if (!zone || zone === 'Z') return true
  if (/^-00(:?00)?$/.test(zone)) return false
  const offsetMinutes = zone.length > 3 ? Number(zone.slice(-2)) : 0
  return Number(zone.slice(1, 3)) <= 23 && offsetMinutes <= 59
}

function toIsoExtended (m) {
  const zone = !m[8] ? 'Z' : m[8] === 'Z' ? 'Z' : m[8].length === 3 ? m[8] + ':00' : m[8].length === 5 ? m[8].slice(0, 3) + ':' + m[8].slice(3) : m[8]
  const frac = m[7] ? '.' + (m[7] + '00').slice(0, 3) : ''
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] || '00'}${frac}${zone}`
}

// Timestamps are stored in UTC (2.0 §4.2.7 requires converting non-UTC
// ones; 1.0.3 Data 4.5.s1.b5 allows it). A "Z" timestamp is kept exactly,
// with all its fraction digits.
const UTC_EXTENDED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z$/

function toUtcTimestamp (value) {
  if (UTC_EXTENDED.test(value)) return value // the common case, kept exactly
  return new Date(Date.parse(toIsoExtended(TIMESTAMP.exec(value)))).toISOString()
}

module.exports = { IRI, UUID, DURATION, LANGUAGE_TAG, MBOX, SHA1_HEX, SHA2_HEX, isValidTimestamp, toUtcTimestamp }
