'use strict'

// How fast one core's work runs when K processes run the same work at once,
// K = 1, 2, 4 ... up to the machine's CPUs: per-process operations per
// second of a fixed CPU-bound task (parse, validate-like walk, serialize and
// hash a 2 KB statement). On a machine whose CPUs share physical cores
// (hyperthreads) or whose clock falls as more cores are busy, a process's
// speed drops as K grows, and "CPU per statement" rises with the workers
// for reasons outside the LRS. Read beside the cores scenario's CPU per
// statement (bench/cores.js).
//
//   node tools/cpu-calibration.js [--seconds 3] [--counts 1,2,4,8,16]

const os = require('node:os')
const crypto = require('node:crypto')
const { fork } = require('node:child_process')
const { parseArgs } = require('node:util')

function work (seconds) {
  const statement = JSON.stringify({ actor: { mbox: 'mailto:a@example.com', name: 'A' }, verb: { id: 'http://adlnet.gov/expapi/verbs/completed', display: { 'en-US': 'completed' } }, object: { id: 'http://example.com/a', definition: { name: { 'en-US': 'x'.repeat(1500) } } } })
  const until = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9))
  let ops = 0
  while (process.hrtime.bigint() < until) {
    for (let i = 0; i < 50; i++) {
      const parsed = JSON.parse(statement)
      parsed.n = ops
      crypto.createHash('sha256').update(JSON.stringify(parsed)).digest()
      ops++
    }
  }
  return ops / seconds
}

if (process.argv[2] === '--child') {
  process.once('message', ({ seconds }) => process.send(work(seconds)))
} else {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '3' }, counts: { type: 'string' } } })
  const cpus = os.cpus().length
  const counts = values.counts ? values.counts.split(',').map(Number) : [1, 2, 4, 8, 16, 32].filter((k) => k <= cpus)
  ;(async () => {
    const rows = []
    let single = null
    for (const k of counts) {
      const children = Array.from({ length: k }, () => fork(__filename, ['--child']))
      await new Promise((resolve) => setTimeout(resolve, 300)) // all started
      const rates = await Promise.all(children.map((c) => new Promise((resolve) => { c.once('message', resolve); c.send({ seconds: Number(values.seconds) }) })))
      children.forEach((c) => c.kill())
      const perProcess = rates.reduce((a, b) => a + b, 0) / k
      single ??= perProcess
      rows.push({ processes: k, opsPerSecPerProcess: Math.round(perProcess), relativeToOne: Number((perProcess / single).toFixed(2)) })
      console.log(JSON.stringify(rows[rows.length - 1]))
    }
    console.log(JSON.stringify({ cpus, model: os.cpus()[0].model, rows }))
  })()
}
