'use strict'

// Time buckets of a report (hour, day, week, month) in the time zone the
// report names (IANA: Europe/Paris, America/New_York; UTC by default): an
// admin in Paris asks for Monday's statements, not UTC's. A bucket is named
// by its local start: 2026-12-07T09:00 (hour), 2026-12-07 (day), the
// Monday of an ISO week (week), 2026-12 (month).
//
// A zone's offset from UTC is asked of Intl once per day of time it is
// asked about and kept while it holds (it changes at most once a day, at a
// daylight saving change), and the local time is worked out from it: a
// report reading a million statements, or naming the buckets of a year's
// hours, asked Intl for each (a few microseconds each time).

const BUCKETS = ['hour', 'day', 'week', 'month']
const HOUR_MS = 3600000
const DAY_MS = 24 * HOUR_MS
const zones = new Map() // time zone -> { format, from, to, offset }

function zoneOf (timeZone) {
  let zone = zones.get(timeZone)
  if (!zone) {
    const format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
    zone = { format, from: 0, to: 0, offset: 0 }
    if (zones.size > 1000) zones.clear()
    zones.set(timeZone, zone)
  }
  return zone
}

// Whether `timeZone` is one the runtime knows.
function knownTimeZone (timeZone) {
  try {
    zoneOf(timeZone)
    return true
  } catch {
    return false
  }
}

// Local time minus UTC at `ms` (ms), from Intl.
function askOffset (zone, ms) {
  const p = {}
  for (const part of zone.format.formatToParts(new Date(ms))) p[part.type] = Number(part.value)
  const local = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second)
  const year = p.year
  // Date.UTC reads years 0..99 as 1900..1999
  const exact = year < 100 ? new Date(local).setUTCFullYear(year) : local
  return exact - (ms - (((ms % 1000) + 1000) % 1000))
}

// The zone's offset at `ms`: kept for the day from the hour it was asked
// in, when it is the same at both ends of that day.
function offsetAt (timeZone, ms) {
  const zone = zoneOf(timeZone)
  if (ms >= zone.from && ms < zone.to) return zone.offset
  const from = Math.floor(ms / HOUR_MS) * HOUR_MS
  const offset = askOffset(zone, from)
  if (askOffset(zone, from + DAY_MS - 1) === offset) Object.assign(zone, { from, to: from + DAY_MS, offset })
  else if (askOffset(zone, ms) === offset) return offset // the hour of a change: asked each time
  else return askOffset(zone, ms)
  return offset
}

const pad = (n, width = 2) => String(n).padStart(width, '0')

// The name of the bucket `ms` falls in.
function bucketOf (ms, bucket, timeZone) {
  const local = new Date(ms + offsetAt(timeZone, ms))
  const day = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`
  if (bucket === 'hour') return `${day}T${pad(local.getUTCHours())}:00`
  if (bucket === 'day') return day
  if (bucket === 'month') return day.slice(0, 7)
  // week: back to its Monday, counted on the calendar (no time zone left)
  const monday = new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()))
  if (local.getUTCFullYear() < 100) monday.setUTCFullYear(local.getUTCFullYear())
  monday.setUTCDate(monday.getUTCDate() - ((monday.getUTCDay() + 6) % 7))
  return `${pad(monday.getUTCFullYear(), 4)}-${pad(monday.getUTCMonth() + 1)}-${pad(monday.getUTCDate())}`
}

module.exports = { bucketOf, knownTimeZone, BUCKETS }
