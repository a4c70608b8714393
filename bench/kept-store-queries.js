'use strict'

// The scale scenario's query phase on a store it kept (BENCH_SCALE_KEEP_STORE),
// without filling one again (35 minutes to 10 M on the 2-core VM): every
// GET /statements shape, pages of 100 and of 2, `--queries` times each,
// while POST /statements keeps arriving at 1,000 statements/s, through the
// LRS of this checkout and of each --root (an older commit's worktree),
// one after the other in alternating rounds on the same store. The ingest
// adds to the store (about 3 % of 10 M per run).
//
//   node bench/kept-store-queries.js --store <folder> [--root <checkout> ...] [--repeat 3] [--queries 100]
//
// Prints each run and the medians over rounds per checkout and shape;
// writes bench/results/kept-store-queries-<date>.json.

const path = require('node:path')
const os = require('node:os')
const { parseArgs } = require('node:util')
const { SHAPES, timeQueries } = require('./statement-queries')
const { median, saveResult } = require('./report')

const ROOT = path.join(__dirname, '..')

// One run: the LRS of `root` (its own bench/lrs-process.js, so its own
// ecosystem.config.js) on the store, the shapes timed under ingest as the
// scale scenario times them.
async function run (root, store, { queries, rate }) {
  const { startLrs } = require(path.join(root, 'bench/lrs-process'))
  const lrs = await startLrs({ store: { lrsEnv: { MONGODB_URI: '', LRS_DATA_DIR: store } } })
  try {
    const { shapes, small } = await timeQueries(lrs.url, { queries, rate })
    return Object.fromEntries(Object.keys(shapes).map((name) => [name, { pages100: shapes[name], pages2: small[name] }]))
  } finally {
    await lrs.stop()
  }
}

async function main () {
  const { values } = parseArgs({
    options: {
      store: { type: 'string' },
      root: { type: 'string', multiple: true, default: [] },
      repeat: { type: 'string', default: '3' },
      queries: { type: 'string', default: '100' },
      rate: { type: 'string', default: '1000' }
    }
  })
  if (!values.store) throw new Error('--store <folder>: a store the scale scenario kept')
  const roots = [ROOT, ...values.root.map((r) => path.resolve(r))]
  const label = (root) => path.relative(process.cwd(), root) || '.'
  const runs = []
  for (let round = 1; round <= Number(values.repeat); round++) {
    // alternating, and each round starts with the other checkout
    const order = round % 2 ? roots : [...roots].reverse()
    for (const root of order) {
      const shapes = await run(root, path.resolve(values.store), { queries: Number(values.queries), rate: Number(values.rate) })
      const worst = Math.max(...Object.values(shapes).map((s) => s.pages100.p99Ms))
      runs.push({ round, root: label(root), shapes })
      process.stdout.write(`#${round} ${label(root)}: slowest P99 ${worst.toFixed(1)} ms; P50/P99 ` +
        Object.entries(shapes).map(([n, s]) => `${n} ${s.pages100.p50Ms.toFixed(1)}/${s.pages100.p99Ms.toFixed(1)}`).join(', ') + '\n')
    }
  }
  const medians = roots.map((root) => {
    const mine = runs.filter((r) => r.root === label(root))
    const shapes = Object.fromEntries(Object.keys(SHAPES).map((name) => [name, {
      p50Ms: median(mine.map((r) => r.shapes[name].pages100.p50Ms)),
      p99Ms: median(mine.map((r) => r.shapes[name].pages100.p99Ms)),
      p99MsMax: Math.max(...mine.map((r) => r.shapes[name].pages100.p99Ms)),
      p50MsPages2: median(mine.map((r) => r.shapes[name].pages2.p50Ms))
    }]))
    return { root: label(root), slowestP99Ms: median(mine.map((r) => Math.max(...Object.values(r.shapes).map((s) => s.pages100.p99Ms)))), shapes }
  })
  process.stdout.write('\nMedians over rounds, pages of 100 (P50 / P99 ms):\n')
  process.stdout.write(`| Shape | ${medians.map((m) => m.root).join(' | ')} |\n|---|${medians.map(() => '---').join('|')}|\n`)
  for (const name of Object.keys(SHAPES)) process.stdout.write(`| ${name} | ${medians.map((m) => `${m.shapes[name].p50Ms.toFixed(1)} / ${m.shapes[name].p99Ms.toFixed(1)}`).join(' | ')} |\n`)
  process.stdout.write(`| slowest P99, median of rounds | ${medians.map((m) => m.slowestP99Ms.toFixed(1)).join(' | ')} |\n`)
  const file = saveResult('kept-store-queries', { date: new Date().toISOString(), store: values.store, cpus: os.cpus().length, settings: { queries: Number(values.queries), rate: Number(values.rate), repeat: Number(values.repeat) }, medians, runs })
  process.stdout.write(`\n${file}\n`)
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
