'use strict'

// The load-testing product: `npm run bench` runs the quick profile (under
// five minutes on a 2-core machine), `npm run bench -- --full` the full one
// (more sizes, every scenario three times: figures as median and spread;
// `--repeat N` sets the count), `npm run bench -- ingest` one scenario.
// By default it starts everything itself on 127.0.0.1 (the LRS the README
// way, on a fresh store per run) and stops it; `--url http://host:8080
// --user KEY --password SECRET` measures a running deployment instead
// (the scenarios that need the store itself are skipped then).
//
// Every run writes bench/results/<date-time>/: results.json, report.md
// (machine, its load at the start and end, versions, settings, every
// figure, how to reproduce) and plots/*.svg, which the report embeds.
//
// `--compare old/results.json` adds, after the run, every figure's change
// against that earlier run (printed, and in report.md);
// `npm run bench -- --compare A.json B.json` compares two results files
// and runs nothing.
//
// `--profile small|campus|worst` chooses the statements' cardinality
// (learners, registrations, activities: bench/statement-generator.js;
// campus unless said, or BENCH_PROFILE); every report names it.

const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { parseArgs } = require('node:util')
const { execFileSync } = require('node:child_process')
const { scenarios } = require('./scenarios')
const { renderSvg } = require('./plots')
const { writeReport } = require('./bench-report')
const { combineRuns } = require('./repetitions')
const { sampleMachineLoad, scenarioLoad, busyReasons, BUSY_WARNING } = require('./machine-load')
const { readResults, compareResults, comparisonMarkdown } = require('./compare')
const { describeProfile, profileNamed } = require('./statement-generator')
const { planRun, defaultScenarios, duration, about } = require('./plan')

// BENCH_COMMIT names it where the checkout travelled without .git (the
// device machine: ../shared/device/pack.sh).
function gitCommit () {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return process.env.BENCH_COMMIT || null
  }
}

function machine () {
  const cpus = os.cpus()
  return {
    cpus: cpus.length,
    cpuModel: cpus[0] && cpus[0].model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    lrs: require('../package.json').version,
    commit: gitCommit()
  }
}

// A results.json written before figures carried their labels reads with
// today's declarations.
function withLabels (results) {
  for (const s of results.sections) if (!s.labels && scenarios[s.name]) s.labels = scenarios[s.name].labels
  return results
}

async function main (argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { full: { type: 'boolean' }, url: { type: 'string' }, user: { type: 'string' }, password: { type: 'string' }, engine: { type: 'string' }, repeat: { type: 'string' }, compare: { type: 'string' }, profile: { type: 'string' } }
  })
  // --compare A.json B.json: two files, nothing run.
  if (values.compare && positionals.some((p) => p.endsWith('.json'))) {
    if (positionals.length !== 1 || !positionals[0].endsWith('.json')) throw new Error('--compare takes one results.json to compare a new run with, or two (A.json B.json) and no scenarios')
    const comparison = compareResults(withLabels(readResults(values.compare)), withLabels(readResults(positionals[0])), { beforeFile: values.compare, afterFile: positionals[0] })
    process.stdout.write(comparisonMarkdown(comparison) + '\n')
    return
  }
  // read before the run, so that a wrong path fails at once
  const earlier = values.compare ? withLabels(readResults(values.compare)) : null
  const unknown = positionals.filter((p) => !scenarios[p])
  if (unknown.length) throw new Error(`unknown scenario ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`)
  const profile = values.full ? 'full' : 'quick'
  // the statements' profile, for every scenario and the processes they start
  if (values.profile) {
    profileNamed(values.profile) // an unknown one fails here, before anything runs
    process.env.BENCH_PROFILE = values.profile
  }
  const statements = describeProfile()
  const repeat = values.repeat === undefined ? (profile === 'full' ? 3 : 1) : Number(values.repeat)
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 10) throw new Error('--repeat takes a whole number from 1 to 10')
  const target = values.url
    ? { url: values.url.replace(/\/+$/, ''), auth: `${values.user || ''}:${values.password || ''}` }
    : { engine: values.engine || 'sqlite' }
  // A scenario that takes long (scale: half an hour to ten million) runs
  // only when named; the quick run leaves out those marked fullOnly (its
  // five minutes: bench/plan.js).
  const names = positionals.length ? positionals : defaultScenarios(profile)
  const plan = planRun({ names, profile, target, repeat: values.repeat === undefined ? null : repeat })
  const estimateOf = Object.fromEntries(plan.scenarios.map((s) => [s.name, s.seconds]))
  const started = new Date()
  const dir = path.join(__dirname, 'results', started.toISOString().replace(/[:.]/g, '-'))
  fs.mkdirSync(path.join(dir, 'plots'), { recursive: true })
  const progress = (text) => process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${text}\n`)
  progress(`bench ${profile} profile, ${target.url ? `against ${target.url}` : `${target.engine} engine on 127.0.0.1`}: ${names.join(', ')}`)
  progress(`statements: ${statements.text}`)
  // how long it will take, from the plan (bench/plan.js), said first
  const left = positionals.length ? [] : Object.keys(scenarios).filter((n) => !names.includes(n) && !scenarios[n].onlyWhenNamed)
  progress(`${positionals.length ? 'this run' : `${profile} run`}: ${names.length} scenario${names.length === 1 ? '' : 's'}, ${about(plan.seconds)} on ${os.cpus().length} cores` +
    (positionals.length || profile === 'full' ? '' : ` (--full: ${about(planRun({ profile: 'full', target }).seconds)})`) +
    (left.length ? `; ${left.join(', ')} only with --full or when named` : ''))

  const sections = []
  const machineLoad = { start: await sampleMachineLoad(), end: null }
  const results = { date: started.toISOString(), profile, statements, target: { ...target, auth: undefined }, machine: machine(), machineLoad, command: argv.length ? `npm run bench -- ${argv.join(' ')}` : 'npm run bench', sections }
  const { start } = machineLoad
  progress(`machine load at the start: 1-minute load ${start.load1} on ${start.cores} cores, CPU steal ${start.stealPercent ?? '-'} %, CPU busy ${start.busyPercent ?? '-'} %`)
  const warnIfBusy = () => {
    const reasons = busyReasons(results)
    if (reasons.length) progress(`WARNING: ${BUSY_WARNING} (${reasons.join('; ')})`)
  }
  warnIfBusy()
  // Written after every scenario: a run stopped or failing half-way keeps
  // what it measured.
  const save = () => {
    fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(results, null, 2))
    writeReport(path.join(dir, 'report.md'), results)
  }
  for (const name of names) {
    const scenario = scenarios[name]
    if (target.url && !scenario.remote) {
      progress(`${name}: skipped (it needs the store itself, not only the LRS's URL)`)
      sections.push({ name, title: scenario.title, question: scenario.question, skipped: 'needs the store itself; run without --url' })
      continue
    }
    progress(`${name}: ${scenario.title} (${about(estimateOf[name])})`)
    const scenarioStarted = Date.now()
    // Scenarios that alternate their own repetitions (bulk-load, cores) run
    // once; those that read it take an explicit --repeat as their count.
    const times = scenario.repeatsInside ? 1 : repeat
    const runs = []
    const loadDuring = scenarioLoad()
    let failure = null
    for (let k = 0; k < times && !failure; k++) {
      if (times > 1) progress(`${name}: repetition ${k + 1} of ${times}`)
      try {
        runs.push(await scenario.run({ profile, target, progress, repeat: values.repeat === undefined ? null : repeat }))
      } catch (err) {
        failure = err
      }
    }
    // A failing scenario is reported as such and the others still run.
    if (failure) {
      progress(`${name}: FAILED: ${failure.message}`)
      sections.push({ name, title: scenario.title, question: scenario.question, failed: `${failure.message} (after ${runs.length} of ${times} repetitions)`, machineLoad: loadDuring() })
      save()
      continue
    }
    const section = combineRuns(runs)
    const plots = []
    for (const plot of section.plots || []) {
      const file = `plots/${name}-${plot.name}.svg`
      fs.writeFileSync(path.join(dir, file), await renderSvg(plot.spec, { title: plot.title }))
      plots.push({ title: plot.title, file })
    }
    sections.push({ name, title: scenario.title, question: scenario.question, labels: scenario.labels, machineLoad: loadDuring(), ...section, plots, seconds: Math.round((Date.now() - scenarioStarted) / 1000), estimatedSeconds: estimateOf[name] })
    save()
  }
  machineLoad.end = await sampleMachineLoad()
  const { end } = machineLoad
  progress(`machine load at the end: 1-minute load ${end.load1} (counts the benchmark itself), CPU steal ${end.stealPercent ?? '-'} %`)
  warnIfBusy()
  if (earlier) {
    results.comparison = compareResults(earlier, results, { beforeFile: values.compare, afterFile: path.relative(process.cwd(), path.join(dir, 'results.json')) })
    process.stdout.write('\n' + comparisonMarkdown(results.comparison) + '\n\n')
  }
  results.seconds = Math.round((Date.now() - started) / 1000)
  results.estimatedSeconds = plan.seconds
  save()
  progress(`wrote ${path.relative(process.cwd(), dir)}/ (report.md, results.json, plots/)`)
  progress(`took ${duration(results.seconds)} (${about(plan.seconds)} was estimated at the start)`)
  if (sections.some((s) => s.failed)) process.exitCode = 1
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`bench failed: ${err.stack || err.message}\n`)
  process.exit(1)
})
