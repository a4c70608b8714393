'use strict'

// Statements as NDJSON, one statement per line as GET /statements returns
// it (with `stored` and `authority`), voided ones included: what
// `npm run import` reads back. Pages of PAGE statements follow a keyset
// position, so memory stays flat for any size; the caller writes each
// chunk and waits for the sink to drain.

const { withStored } = require('../resources/statements/statement-record')

const PAGE = 1000

// Yields strings of whole lines, of one store (`store`: its number).
async function * exportStatements (statements, { since = null, until = null, store = 0 } = {}) {
  let after = null
  for (;;) {
    const rows = await statements.scan({ since, until, after, limit: PAGE, store })
    if (!rows.length) return
    after = rows[rows.length - 1].position
    yield rows.map((r) => withStored(r) + '\n').join('')
    if (rows.length < PAGE) return
  }
}

module.exports = { exportStatements }
