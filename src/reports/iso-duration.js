'use strict'

// result.duration (an ISO 8601 duration, Data 4.6: PT1H30M, P1DT2.5S) in
// seconds, or null for one that is not. Years and months have no fixed
// length: taken as 365 and 30 days (what a learner's time on a module
// never reaches), weeks as 7 days.
const PATTERN = /^P(?:(\d+(?:[.,]\d+)?)Y)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/
const SECONDS = [365 * 86400, 30 * 86400, 7 * 86400, 86400, 3600, 60, 1]

function durationSeconds (text) {
  if (typeof text !== 'string' || text === 'P' || text.endsWith('T')) return null
  const m = PATTERN.exec(text)
  if (!m) return null
  let total = 0
  for (let i = 0; i < SECONDS.length; i++) if (m[i + 1] !== undefined) total += Number(m[i + 1].replace(',', '.')) * SECONDS[i]
  return total
}

module.exports = { durationSeconds }
