'use strict'

// An error as it crosses between the writer (a thread or the host's writer
// process) and whoever called it: a plain object on the way out, its
// stack too, for the log; an Error with the same name, code and stack on
// the way back.

function errorOf (err) {
  return { name: err.name, message: err.message, code: err.code, stack: err.stack }
}

function errorFrom (plain) {
  return Object.assign(new Error(plain.message), { name: plain.name, code: plain.code, stack: plain.stack })
}

module.exports = { errorOf, errorFrom }
