'use strict'

// `seq`: the statements' integer key and order, stored time in ms shifted
// left 11 bits plus a counter (see schema.js).
const SHIFT = 2048

const storedMsOf = (seq) => Math.floor(seq / SHIFT)
const storedOf = (seq) => new Date(storedMsOf(seq))
const firstSeqOf = (ms) => ms * SHIFT
const lastSeqOf = (ms) => ms * SHIFT + SHIFT - 1

module.exports = { storedOf, storedMsOf, firstSeqOf, lastSeqOf, SHIFT }
