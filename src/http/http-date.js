'use strict'

// Last-Modified value: an HTTP date has no fraction, so truncate to whole
// seconds; rounding up would put Last-Modified after the stored time.
function httpDate (date) {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toUTCString()
}

// Last-Modified of a set of resources: the newest of their dates.
function lastModified (dates) {
  return httpDate(dates.reduce((m, d) => (d > m ? d : m)))
}

module.exports = { httpDate, lastModified }
