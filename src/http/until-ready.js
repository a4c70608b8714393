'use strict'

// Holds requests until `ready` resolves: what the LRS must learn from its
// store before it can answer them (how the store keys mboxes: a key made
// the wrong way would be stored or looked up where no query finds it). It
// resolves within milliseconds of a start; while the database cannot be
// reached it does not, and a request that waited `waitMs` gets 503 as any
// request the database cannot serve.

const { errors } = require('../errors')

function untilReady (ready, { waitMs }) {
  let known = false
  ready.then(() => { known = true }, () => {})
  return (req, res, next) => {
    if (known) return next()
    let settled = false
    const go = (err) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      next(err)
    }
    const timer = setTimeout(() => go(errors.DatabaseUnavailable(undefined, { cause: new Error(`store settings not read within ${waitMs} ms`) })), waitMs)
    ready.then(() => go(), (err) => go(errors.DatabaseUnavailable(undefined, { cause: err })))
  }
}

module.exports = { untilReady }
