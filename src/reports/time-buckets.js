'use strict'

// Time buckets of a report (hour, day, week, month) in the time zone the
// report names (IANA: Europe/Paris, America/New_York; UTC by default): an
// admin in Paris asks for Monday's statements, not UTC's. A bucket is named
// by its local start: 2026-12-07T09:00 (hour), 2026-12-07 (day), the
// Monday of an ISO week (week), 2026-12 (month).

const BUCKETS = ['hour', 'day', 'week', 'month']
const formatters = new Map() // time zone -> Intl.DateTimeFormat

function formatterOf (timeZone) {
  let f = formatters.get(timeZone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit' })
    formatters.set(timeZone, f)
  }
  return f
}

// Whether `timeZone` is one the runtime knows.
function knownTimeZone (timeZone) {
  try {
    formatterOf(timeZone)
    return true
  } catch {
    return false
  }
}

const pad = (n) => String(n).padStart(2, '0')

// The name of the bucket `ms` falls in.
function bucketOf (ms, bucket, timeZone) {
  const parts = {}
  for (const p of formatterOf(timeZone).formatToParts(new Date(ms))) parts[p.type] = p.value
  const day = `${parts.year}-${parts.month}-${parts.day}`
  if (bucket === 'hour') return `${day}T${parts.hour}:00`
  if (bucket === 'day') return day
  if (bucket === 'month') return `${parts.year}-${parts.month}`
  // week: back to its Monday, counted on the calendar (no time zone left)
  const date = new Date(Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day)))
  date.setUTCDate(date.getUTCDate() - ((date.getUTCDay() + 6) % 7))
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
}

module.exports = { bucketOf, knownTimeZone, BUCKETS }
