'use strict'

// The lines of a CSV statement export made on a thread of their own
// (statement-csv.js): each row's body parsed and its cells written there
// while the request's thread reads the next page, so an export uses two
// cores (measured on the 2-core VM: parsing and formatting were half of an
// export's time, reading and inflating the bodies the other half). Pages
// are answered in the order they were sent.

const { Worker, isMainThread, parentPort, workerData } = require('node:worker_threads')

// A thread for one export: format(rows) -> its lines (a promise), close().
function csvLineThread ({ fields, lang }) {
  const worker = new Worker(__filename, { workerData: { fields, lang } })
  const waiting = [] // { resolve, reject }, in the order sent
  let failed = null
  worker.on('message', (text) => waiting.shift().resolve(text))
  worker.on('error', (err) => {
    failed = err
    for (const w of waiting.splice(0)) w.reject(err)
  })
  worker.unref()
  return {
    format (rows) {
      if (failed) return Promise.reject(failed)
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject })
        worker.postMessage(rows)
      })
    },
    close: () => worker.terminate()
  }
}

if (!isMainThread && workerData && workerData.fields) {
  const { lineMaker } = require('./statement-csv')
  const lineOf = lineMaker(workerData.fields, { lang: workerData.lang })
  parentPort.on('message', (rows) => {
    let text = ''
    for (const row of rows) text += lineOf(row)
    parentPort.postMessage(text)
  })
}

module.exports = { csvLineThread }
