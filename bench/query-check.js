'use strict'

// Are the answers right at a real store's cardinality? A fresh store is
// filled the way a deployment is (`lrs import` of an export-like file, then
// POST /statements to the LRS started the README way, batches of 20 on 10
// connections), then GET /statements is asked by agent, registration,
// activity, verb and their pairs, every page followed through `more`, and
// each answer is checked against what was acknowledged:
//   missing  an acknowledged statement that matches and was not returned
//            (checked for agents, registrations and activities, whose
//            statements are counted while the files are written; verbs
//            hold a seventh of the store, so their pages are checked for
//            extras and order, up to --pages pages)
//   extra    a statement returned that does not match, or was never
//            acknowledged
//   order    a page or the next one not in `stored` order, or a statement
//            twice
// Prints a line per shape; writes bench/results/query-check-*.json; exits 1
// on any mismatch.
//
//   node bench/query-check.js [--profile campus] [--imported 1000000] [--posted 200000] [--samples 100] [--engine sqlite]

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const crypto = require('node:crypto')
const { spawn } = require('node:child_process')
const { parseArgs } = require('node:util')
const { scormStatement, describeProfile } = require('./statement-generator')
const { startLrs } = require('./lrs-process')
const { startStore } = require('./store')
const { saveResult } = require('./report')

const ROOT = path.join(__dirname, '..')
const AUTH = 'Basic ' + Buffer.from('bench:bench-secret').toString('base64')
const HEADERS = { 'X-Experience-API-Version': '1.0.3', Authorization: AUTH }
const BATCH = 20
const CONNECTIONS = 10
const SOURCE = { objectType: 'Agent', name: 'source-lms', account: { homePage: 'http://lms.example.com', name: 'source-lms' } }

// What a statement is found by, from its text.
const keysOf = (s) => ({
  agent: s.actor.account.name,
  registration: s.context.registration,
  activity: s.object.id,
  verb: s.verb.id
})

// Filters: which keys they use, and the query they make.
const enc = encodeURIComponent
const agentParam = (name) => `agent=${enc(JSON.stringify({ account: { homePage: 'http://lms.example.com', name } }))}`
const SHAPES = {
  agent: { keys: ['agent'], query: (k) => agentParam(k.agent) },
  registration: { keys: ['registration'], query: (k) => `registration=${k.registration}` },
  activity: { keys: ['activity'], query: (k) => `activity=${enc(k.activity)}` },
  'agent, verb': { keys: ['agent', 'verb'], query: (k) => `${agentParam(k.agent)}&verb=${enc(k.verb)}` },
  'registration, verb': { keys: ['registration', 'verb'], query: (k) => `registration=${k.registration}&verb=${enc(k.verb)}` },
  'activity, verb': { keys: ['activity', 'verb'], query: (k) => `activity=${enc(k.activity)}&verb=${enc(k.verb)}` },
  verb: { keys: ['verb'], query: (k) => `verb=${enc(k.verb)}`, partial: true }
}

const matches = (keys, filter, shape) => SHAPES[shape].keys.every((k) => keys[k] === filter[k])

// Statements 0..total-1 of the profile: `imported` of them into a file, the
// others posted later. Sample filters are drawn from statements spread over
// both parts; the ids matching each are counted as statements are made.
function plan ({ imported, posted, samples }) {
  const total = imported + posted
  const picks = new Set()
  while (picks.size < Math.min(samples, total)) picks.add(crypto.randomInt(total))
  const filters = {} // shape -> [{ filter keys, expected: Set of ids | null }]
  const sampled = [...picks].map((i) => keysOf(scormStatement(i)))
  for (const shape of Object.keys(SHAPES)) {
    const seen = new Set()
    filters[shape] = []
    for (const k of sampled) {
      const filter = Object.fromEntries(SHAPES[shape].keys.map((name) => [name, k[name]]))
      const key = JSON.stringify(filter)
      if (seen.has(key)) continue
      seen.add(key)
      filters[shape].push({ filter, expected: SHAPES[shape].partial ? null : new Set() })
    }
  }
  // index by each key's value, so a statement finds the filters it matches fast
  const byValue = new Map()
  for (const [shape, list] of Object.entries(filters)) {
    for (const f of list) {
      if (!f.expected) continue
      const first = SHAPES[shape].keys[0]
      const at = `${first}:${f.filter[first]}`
      if (!byValue.has(at)) byValue.set(at, [])
      byValue.get(at).push({ shape, f })
    }
  }
  // every acknowledged statement: id -> its keys
  const acknowledged = new Map()
  function acknowledge (id, keys) {
    acknowledged.set(id, keys)
    for (const name of ['agent', 'registration', 'activity']) {
      for (const { shape, f } of byValue.get(`${name}:${keys[name]}`) || []) if (matches(keys, f.filter, shape)) f.expected.add(id)
    }
  }
  return { total, filters, acknowledged, acknowledge }
}

async function writeImportFile (file, count, acknowledge) {
  const out = fs.createWriteStream(file)
  const start = Date.now() - 2 * count // a ms apart, all before the import
  for (let i = 0; i < count; i++) {
    const s = { ...scormStatement(i), id: crypto.randomUUID() }
    const line = JSON.stringify({ ...s, authority: SOURCE, stored: new Date(start + i).toISOString(), version: '1.0.0' }) + '\n'
    acknowledge(s.id, keysOf(s)) // checked below: the import must store them all
    if (!out.write(line)) await new Promise((resolve) => out.once('drain', resolve))
  }
  await new Promise((resolve, reject) => out.end((err) => (err ? reject(err) : resolve())))
}

async function runImport (file, store, dataDir) {
  const child = spawn(process.execPath, ['--max-semi-space-size=64', path.join(ROOT, 'bin/lrs.js'), 'import', file], { env: { ...process.env, ...store.lrsEnv, LRS_DATA_DIR: dataDir, LRS_LOG_LEVEL: 'warn' } })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  child.stderr.on('data', (d) => { out += d })
  const code = await new Promise((resolve) => child.on('exit', resolve))
  if (code !== 0) throw new Error(`import exited with ${code}: ${out}`)
  return out.trim().split('\n').at(-1)
}

// Statements from..to posted; a batch refused with 429 is sent again after
// its Retry-After; only 200s are acknowledged.
async function postAll (url, from, to, acknowledge) {
  let next = from
  let refused = 0
  const loop = async () => {
    while (next < to) {
      const first = next
      next = Math.min(to, next + BATCH)
      const statements = []
      for (let i = first; i < next; i++) statements.push({ ...scormStatement(i), id: crypto.randomUUID() })
      for (;;) {
        const res = await fetch(url + '/xapi/statements', { method: 'POST', headers: { ...HEADERS, 'Content-Type': 'application/json' }, body: JSON.stringify(statements), signal: AbortSignal.timeout(60000) })
        await res.arrayBuffer()
        if (res.status === 200) break
        if (res.status !== 429) throw new Error(`POST got ${res.status}`)
        refused++
        await new Promise((resolve) => setTimeout(resolve, 1000 * Math.min(5, Number(res.headers.get('retry-after')) || 1)))
      }
      for (const s of statements) acknowledge(s.id, keysOf(s))
    }
  }
  await Promise.all(Array.from({ length: CONNECTIONS }, loop))
  return refused
}

// Every page of one query (up to `maxPages`): the statements, in order.
async function allPages (url, query, maxPages) {
  const statements = []
  let next = `/xapi/statements?${query}&limit=200`
  let pages = 0
  while (next && pages < maxPages) {
    const res = await fetch(url + next, { headers: HEADERS })
    if (res.status !== 200) throw new Error(`GET ${next} got ${res.status}`)
    const body = await res.json()
    statements.push(...body.statements)
    next = body.more || null
    pages++
  }
  return { statements, complete: !next }
}

async function checkShape (url, shape, list, acknowledged, maxPages) {
  const tally = { filters: list.length, returned: 0, missing: 0, extra: 0, order: 0, examples: [] }
  for (const { filter, expected } of list) {
    const { statements, complete } = await allPages(url, SHAPES[shape].query(filter), expected ? 1e6 : maxPages)
    const seen = new Set()
    let previous = Infinity
    for (const s of statements) {
      const stored = Date.parse(s.stored)
      if (seen.has(s.id) || stored > previous) tally.order++
      previous = stored
      seen.add(s.id)
      const keys = acknowledged.get(s.id)
      if (!keys || !matches(keys, filter, shape)) {
        tally.extra++
        if (tally.examples.length < 5) tally.examples.push({ kind: 'extra', filter, id: s.id })
      }
    }
    tally.returned += statements.length
    if (expected && complete) {
      for (const id of expected) {
        if (seen.has(id)) continue
        tally.missing++
        if (tally.examples.length < 5) tally.examples.push({ kind: 'missing', filter, id })
      }
    }
  }
  return tally
}

async function main () {
  const { values } = parseArgs({
    options: {
      profile: { type: 'string' },
      imported: { type: 'string', default: '1000000' },
      posted: { type: 'string', default: '200000' },
      samples: { type: 'string', default: '100' },
      pages: { type: 'string', default: '5' },
      engine: { type: 'string', default: 'sqlite' }
    }
  })
  if (values.profile) process.env.BENCH_PROFILE = values.profile // the generator reads it
  const imported = Number(values.imported)
  const posted = Number(values.posted)
  const profile = describeProfile()
  const log = (line) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`)
  log(`${profile.text}; ${imported} imported, then ${posted} posted; ${values.engine}`)
  const work = plan({ imported, posted, samples: Number(values.samples) })
  const store = await startStore(values.engine)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lrs-query-check-'))
  let lrs = null
  try {
    const file = path.join(dir, 'statements.ndjson')
    if (imported) {
      await writeImportFile(file, imported, work.acknowledge)
      log(`import: ${await runImport(file, store, store.dataDir || dir)}`)
      fs.rmSync(file)
    }
    lrs = await startLrs({ store })
    const started = Date.now()
    const refused = await postAll(lrs.url, imported, work.total, work.acknowledge)
    log(`posted ${posted} in ${((Date.now() - started) / 1000).toFixed(0)} s (${refused} batches refused and sent again)`)
    const stored = await store.count()
    const shapes = {}
    let bad = stored === work.acknowledged.size ? 0 : 1
    log(`store holds ${stored} statements; ${work.acknowledged.size} acknowledged`)
    for (const [shape, list] of Object.entries(work.filters)) {
      const t = await checkShape(lrs.url, shape, list, work.acknowledged, Number(values.pages))
      shapes[shape] = t
      bad += t.missing + t.extra + t.order
      log(`${shape}: ${t.filters} filters, ${t.returned} statements returned, ${t.missing} missing, ${t.extra} extra, ${t.order} out of order${t.examples.length ? ' e.g. ' + JSON.stringify(t.examples[0]) : ''}`)
    }
    const out = { date: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version }, engine: values.engine, statements: profile, imported, posted, stored, acknowledged: work.acknowledged.size, shapes, pass: bad === 0 }
    log(`${bad === 0 ? 'PASS' : 'FAIL'}; wrote ${path.relative(process.cwd(), saveResult('query-check', out))}`)
    process.exitCode = bad === 0 ? 0 : 1
  } finally {
    if (lrs) await lrs.stop()
    await store.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((err) => {
  process.stderr.write(`query check failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
