'use strict'

// The scenarios of `npm run bench`, each answering one published study's
// question for this LRS (docs/benchmarks.md). run({ profile, target,
// progress }) returns the section of the report: settings, figures, a
// table, plots (Vega-Lite). `labels` declares, once, how each figure and
// each table column reads (label and unit, labels.js): report.md's figure
// lines and table headers, the plots' axis titles and --compare use them.

const { ingestSweep } = require('./ingest')
const { bulkLoad, runLine } = require('./bulk-load')
const { overloadRamp } = require('./overload-ramp')
const { soak } = require('./soak')
const { learnerSessions } = require('./sessions')
const { storesIngest, storesQuery, storeDelete } = require('./stores')
const { storageEngines } = require('./engines')
const { coresSweep, summarize, checkCriteria, defaultWorkers, settingsFromEnv, LRS_APPS } = require('./cores')
const { scaleFill, scaleChecks, largestGrowth } = require('./scale')
const { percentile } = require('./report')
const { pick, header } = require('./labels')

const PROFILES = {
  ingest: {
    quick: { engines: ['sqlite'], batches: [1, 5, 20, 100], connections: [10], duration: 4 },
    full: { engines: ['sqlite', 'ferretdb'], batches: [1, 5, 20, 100], connections: [10, 100], duration: 10 }
  },
  soak: {
    quick: { seconds: 60, windowSeconds: 5 },
    full: { seconds: 300, windowSeconds: 10 }
  },
  // quick: the same learners in half the steps (the five-minute quick run)
  sessions: {
    quick: { maxLearners: 800, stepLearners: 160, stepSeconds: 6, intervalMs: 500, steps: 5, prefilled: 100000 },
    full: { maxLearners: 3000, stepLearners: 150, stepSeconds: 15, intervalMs: 500, steps: 10, prefilled: 1000000 }
  },
  stores: {
    quick: { stores: 100, batch: 20, connections: 10, seconds: 5, pairs: 3 },
    full: { stores: 100, batch: 20, connections: 10, seconds: 15, pairs: 5 }
  },
  storeDelete: {
    quick: { big: 100000, other: 10000, rate: 1000, batch: 20, connections: 10, seconds: 5, baselines: 2 },
    full: { big: 1000000, other: 10000, rate: 1000, batch: 20, connections: 10, seconds: 5, baselines: 3 }
  },
  storesQuery: {
    quick: { big: 100000, small: 10000, queries: 40, rounds: 1 },
    full: { big: 1000000, small: 10000, queries: 100, rounds: 3 }
  },
  overload: {
    quick: { connections: [5, 10, 25, 50, 100, 200], seconds: 4 },
    full: { connections: [5, 10, 25, 50, 100, 200, 400, 800], seconds: 15 }
  },
  bulkLoad: {
    quick: { count: 20000, repeat: 1 },
    full: { count: 200000, repeat: 3 }
  },
  // Worker counts 1, 2, 4 ... up to the machine's cores, at least 8 (16).
  cores: {
    quick: { workers: defaultWorkers(8), connections: 64, seconds: 4, repeat: 2, overload: [4, 16], warmupSeconds: 1 },
    full: { workers: defaultWorkers(16), connections: 64, seconds: 15, repeat: 3, overload: [4, 16], warmupSeconds: 3 }
  },
  // A step: what is added between two measurements (a million in --full);
  // `fill` import: the steps between the first and the last through npm run
  // import. BENCH_SCALE_STATEMENTS, BENCH_SCALE_STEP, BENCH_SCALE_FILL.
  scale: {
    quick: { statements: 300000, step: 100000, fill: 'import', queries: 20, ingestRate: 1000 },
    full: { statements: 10000000, step: 1000000, fill: 'import', queries: 100, ingestRate: 1000 }
  },
  // FerretDB reads every statement for a filtered query (seconds at 25,000):
  // it stops early.
  engines: {
    quick: { engines: ['sqlite', 'ferretdb'], sizes: [2500, 10000, 50000, 100000], maxSize: { ferretdb: 10000 }, queries: 5 },
    full: { engines: ['sqlite', 'ferretdb'], sizes: [10000, 25000, 100000, 250000, 500000, 1000000], maxSize: { ferretdb: 25000 }, queries: 10 }
  }
}

const round = (x) => (x === null || x === undefined ? null : Math.round(x))

// Several measures over one x axis, one small chart each (stacked), each
// with its own y axis titled with the measure and its unit, fitted to its
// data: `values` are { [x.field], measure, value }, `measure` an axis title
// ('P99 (ms)'). `series`: a field that makes one line per value (colour);
// `logY`: y on a log scale.
function measuresChart (values, x, { series = null, logY = false } = {}) {
  const measures = [...new Set(values.map((v) => v.measure))]
  return {
    vconcat: measures.map((measure) => ({
      data: { values: values.filter((v) => v.measure === measure && v.value !== null && v.value !== undefined) },
      mark: { type: 'line', point: true },
      width: 480,
      height: 110,
      encoding: {
        x: { type: 'quantitative', ...x },
        y: { field: 'value', type: 'quantitative', title: measure, ...(logY && { scale: { type: 'log' } }) },
        ...(series && { color: { field: series, type: 'nominal', title: null } })
      }
    }))
  }
}

const ingest = {
  title: 'Ingest sweep',
  labels: {
    figures: {
      bytesPerStatement: { label: 'Disk per statement, {key}', unit: 'bytes', better: 'lower' }
    },
    columns: {
      ...pick('engine', 'batch', 'connections', 'p50Ms', 'p99Ms'),
      lrsStatementsPerSec: { label: 'LRS statements/s', unit: 'statements/s' },
      engineAloneStatementsPerSec: { label: 'Engine alone statements/s', unit: 'statements/s' },
      ratio: { label: 'LRS / engine alone', unit: '×' },
      lrsCpuMicrosPerStatement: { label: 'LRS CPU per statement', unit: 'µs' },
      non2xx: { label: 'Non-2xx responses', unit: 'responses' }
    }
  },
  question: 'Statements per second and latency over batch sizes and connections, against the engine\'s own insert ceiling in the same run (the Veracity and Abacus studies).',
  remote: true,
  async run ({ profile, target, progress }) {
    const settings = { ...PROFILES.ingest[profile], ...(target.engine && { engines: profile === 'full' ? PROFILES.ingest.full.engines : [target.engine] }) }
    const runs = await ingestSweep({
      ...settings,
      url: target.url || null,
      auth: target.auth,
      onRow: (engine, row) => progress(`  ${engine} batch ${row.batch} x ${row.connections} connections: LRS ${round(row.lrs.statementsPerSec)} st/s` +
        (row.raw ? `, engine alone ${round(row.raw.statementsPerSec)} st/s` : '') + `, P99 ${row.lrs.latencyMs.p99} ms`)
    })
    const rows = runs.flatMap((run) => run.scenarios.map((s) => ({
      engine: run.engine,
      batch: s.batch,
      connections: s.connections,
      lrsStatementsPerSec: round(s.lrs.statementsPerSec),
      engineAloneStatementsPerSec: s.raw ? round(s.raw.statementsPerSec) : null,
      ratio: s.ratio ? Math.round(s.ratio * 100) / 100 : null,
      p50Ms: s.lrs.latencyMs.p50,
      p99Ms: s.lrs.latencyMs.p99,
      lrsCpuMicrosPerStatement: round(s.lrs.cpuMicrosPerStatement),
      non2xx: s.lrs.non2xx
    })))
    const points = rows.flatMap((r) => [
      { series: `${r.engine} LRS, ${r.connections} conns`, batch: r.batch, rate: r.lrsStatementsPerSec },
      ...(r.engineAloneStatementsPerSec ? [{ series: `${r.engine} engine alone, ${r.connections} conns`, batch: r.batch, rate: r.engineAloneStatementsPerSec }] : [])
    ])
    return {
      settings,
      figures: { bytesPerStatement: Object.fromEntries(runs.map((r) => [r.engine, r.bytesPerStatement ?? null])) },
      table: rows,
      plots: [{
        name: 'throughput',
        title: 'Statements/s against statements per request, LRS and engine alone',
        spec: {
          data: { values: points },
          mark: { type: 'line', point: true },
          encoding: {
            x: { field: 'batch', type: 'ordinal', title: header(ingest.labels.columns.batch), axis: { labelAngle: 0 } },
            y: { field: 'rate', type: 'quantitative', title: 'Statements/s' },
            color: { field: 'series', type: 'nominal', title: null, legend: { labelLimit: 400 } }
          }
        }
      }]
    }
  }
}

const bulk = {
  title: 'Bulk load',
  labels: {
    figures: {
      rawStatementsPerSec: { label: 'Engine raw insert', unit: 'statements/s', better: 'higher' },
      importStatementsPerSec: { label: 'npm run import', unit: 'statements/s', better: 'higher' },
      apiStatementsPerSec: { label: 'POST /statements', unit: 'statements/s', better: 'higher' },
      importVsRaw: { label: 'npm run import / engine raw insert', unit: '×', better: 'higher' },
      importVsApi: { label: 'npm run import / POST /statements', unit: '×', better: 'higher' },
      importPeakMemoryMiB: { label: 'npm run import, peak memory (anonymous)', unit: 'MiB', better: 'lower' }
    },
    columns: {
      ...pick('repetition', 'statementsPerSec'),
      way: { label: 'Way' },
      seconds: { label: 'Time', unit: 's' },
      '429s sent again': { label: '429 responses sent again', unit: 'requests' },
      peakMemoryMiB: { label: 'Peak memory (anonymous)', unit: 'MiB' }
    }
  },
  repeatsInside: true, // raw, import and API alternate, `repeat` times
  question: 'How fast does a trusted loader (npm run import) fill a store, against the same file through POST /statements and the engine\'s raw insert (the Ed-Fi study)?',
  remote: false,
  async run ({ profile, target, progress }) {
    const env = process.env
    const settings = {
      ...PROFILES.bulkLoad[profile],
      ...(env.BENCH_STATEMENTS && { count: Number(env.BENCH_STATEMENTS) }),
      ...(env.BENCH_BULK_WAYS && { ways: env.BENCH_BULK_WAYS.split(',').map((w) => w.trim()) })
    }
    const result = await bulkLoad({
      ...settings,
      engine: target.engine,
      onRun: (r, x) => progress(`  #${r + 1}: ${runLine(x)}`)
    })
    const s = result.summary
    return {
      settings: { ...settings, engine: target.engine },
      figures: {
        rawStatementsPerSec: round(s.raw),
        importStatementsPerSec: round(s.import),
        apiStatementsPerSec: round(s.api),
        importVsRaw: s.importVsRaw === null ? null : Math.round(s.importVsRaw * 100) / 100,
        importVsApi: s.importVsApi === null ? null : Math.round(s.importVsApi * 100) / 100,
        importPeakMemoryMiB: result.runs.import.length ? Math.max(...result.runs.import.map((x) => (x.memory ? x.memory.peakMiB : 0))) : null
      },
      table: ['raw', 'import', 'api'].flatMap((k) => result.runs[k].map((x, i) => ({ way: k, repetition: i + 1, statementsPerSec: round(x.statementsPerSec), seconds: Math.round(x.seconds * 10) / 10, '429s sent again': x.refusedAndSentAgain ?? null, peakMemoryMiB: x.memory ? x.memory.peakMiB : null }))),
      plots: [{
        name: 'rates',
        title: `Statements per second by way of loading, ${settings.count.toLocaleString('en')} statements${settings.repeat > 1 ? `, median of ${settings.repeat}` : ''}`,
        spec: {
          data: { values: [{ way: 'engine raw insert', rate: round(s.raw) }, { way: 'npm run import', rate: round(s.import) }, { way: 'POST /statements', rate: round(s.api) }].filter((v) => v.rate !== null) },
          mark: 'bar',
          encoding: { x: { field: 'way', type: 'nominal', title: 'Way of loading', sort: null, axis: { labelAngle: 0 } }, y: { field: 'rate', type: 'quantitative', title: 'Statements/s' } }
        }
      }]
    }
  }
}

const overload = {
  title: 'Overload ramp',
  labels: {
    figures: {
      peakAcceptedStatementsPerSec: { label: 'Peak accepted throughput', unit: 'statements/s', better: 'higher' },
      firstConnectionsWith429: { label: 'First step with 429 responses', unit: 'connections', none: 'none (no step was refused)' },
      fiveXX: { label: '5xx responses, all steps', unit: 'responses', better: 'lower' },
      maxGeneratorCpuShare: { label: 'Load generator CPU, busiest step', unit: 'cores' }
    },
    columns: {
      ...pick('connections', 'refused429', 'fiveXX', 'errors', 'generatorCpuShare'),
      acceptedStatementsPerSec: { label: 'Accepted statements/s', unit: 'statements/s' },
      share429: { label: '429 share of responses', percent: true },
      p50Ms: { label: 'P50 of accepted', unit: 'ms' },
      p99Ms: { label: 'P99 of accepted', unit: 'ms' },
      workersRssMiB: { label: 'Workers RSS', unit: 'MiB' }
    }
  },
  question: 'Connections sending 20-statement batches back to back, rising until the LRS refuses work and beyond: does it keep its accepted throughput and latency, refuse with 429 only (never 5xx), and bound its memory (the Abacus study)?',
  remote: true,
  async run ({ profile, target, progress }) {
    const settings = PROFILES.overload[profile]
    const steps = await overloadRamp({
      ...settings,
      target,
      onStep: (s) => progress(`  ${s.connections} connections: ${s.acceptedStatementsPerSec} st/s accepted, 429 ${(s.share429 * 100).toFixed(0)} %, P99 ${s.p99Ms} ms, 5xx ${s.fiveXX}, RSS ${s.workersRssMiB ?? '-'} MiB`)
    })
    const c = overload.labels.columns
    const long = steps.flatMap((s) => [
      { connections: s.connections, measure: header(c.acceptedStatementsPerSec), value: s.acceptedStatementsPerSec },
      { connections: s.connections, measure: header(c.p99Ms), value: s.p99Ms },
      { connections: s.connections, measure: header(c.share429), value: Math.round(s.share429 * 1000) / 10 },
      ...(s.workersRssMiB ? [{ connections: s.connections, measure: header(c.workersRssMiB), value: s.workersRssMiB }] : [])
    ])
    return {
      settings: { ...settings, batch: 20 },
      figures: {
        peakAcceptedStatementsPerSec: Math.max(...steps.map((s) => s.acceptedStatementsPerSec)),
        firstConnectionsWith429: (steps.find((s) => s.share429 > 0) || {}).connections ?? null,
        fiveXX: steps.reduce((n, s) => n + s.fiveXX, 0),
        maxGeneratorCpuShare: Math.max(...steps.map((s) => s.generatorCpuShare))
      },
      table: steps,
      plots: [{
        name: 'ramp',
        title: 'Accepted throughput, P99, 429 share and memory against connections',
        spec: measuresChart(long, { field: 'connections', scale: { type: 'log' }, title: 'Connections (closed loop, log scale)', axis: { values: steps.map((s) => s.connections) } })
      }]
    }
  }
}

const soakScenario = {
  title: 'Soak',
  labels: {
    figures: {
      medianStatementsPerSec: { label: 'Median throughput over the windows', unit: 'statements/s', better: 'higher' },
      lowestWindowStatementsPerSec: { label: 'Lowest window\'s throughput', unit: 'statements/s', better: 'higher' },
      highestP99Ms: { label: 'Highest window\'s P99', unit: 'ms', better: 'lower' },
      storeReadsPerStatement: { label: 'Store reads per statement written, highest window', unit: 'reads', better: 'lower' }
    },
    columns: {
      ...pick('statementsPerSec', 'p99Ms'),
      atSeconds: { label: 'Time', unit: 's' },
      storeReadsPerSec: { label: 'Store reads/s', unit: 'reads/s' },
      storeReadsPerStatement: { label: 'Store reads per statement', unit: 'reads' }
    }
  },
  fullOnly: true, // in a run of no scenario named, only with --full (bench/plan.js: the quick run stays under five minutes)
  question: 'Sustained ingest (10 connections, 20-statement batches): do throughput and P99 hold over time, and does the store read anything back while writing (the Veracity study, where readback halved throughput)?',
  remote: true,
  async run ({ profile, target, progress }) {
    const settings = PROFILES.soak[profile]
    const windows = await soak({
      ...settings,
      target,
      onWindow: (w) => progress(`  ${w.atSeconds} s: ${w.statementsPerSec} st/s, P99 ${w.p99Ms} ms` + (w.storeReadsPerSec === null ? '' : `, store reads ${w.storeReadsPerSec}/s (${w.storeReadsPerStatement} per statement)`))
    })
    const rates = windows.map((w) => w.statementsPerSec).sort((a, b) => a - b)
    const c = soakScenario.labels.columns
    const long = windows.flatMap((w) => [
      { atSeconds: w.atSeconds, measure: header(c.statementsPerSec), value: w.statementsPerSec },
      { atSeconds: w.atSeconds, measure: header(c.p99Ms), value: w.p99Ms },
      ...(w.storeReadsPerStatement === null ? [] : [{ atSeconds: w.atSeconds, measure: header(c.storeReadsPerStatement), value: w.storeReadsPerStatement }])
    ])
    return {
      settings: { ...settings, connections: 10, batch: 20 },
      figures: {
        medianStatementsPerSec: percentile(rates, 50),
        lowestWindowStatementsPerSec: rates[0],
        highestP99Ms: Math.max(...windows.map((w) => w.p99Ms || 0)),
        storeReadsPerStatement: windows.some((w) => w.storeReadsPerStatement !== null)
          ? Math.max(...windows.map((w) => w.storeReadsPerStatement || 0))
          : 'not measured: the engine reports no operation counters (SQLite runs inside the LRS)'
      },
      table: windows,
      plots: [{
        name: 'over-time',
        title: 'Throughput, P99 and store reads over time',
        spec: measuresChart(long, { field: 'atSeconds', title: 'Time since the start (s)' })
      }]
    }
  }
}

const sessions = {
  title: 'Learner sessions',
  labels: {
    figures: {
      learnersWhenP99: { label: 'Learners when P99 first went {key}', unit: 'learners', none: 'not reached', better: 'higher' },
      completionChecks: { label: 'Completion checks', unit: 'checks' },
      completionChecksWrong: { label: 'Completion checks answered wrong', unit: 'checks', better: 'lower' }
    },
    columns: {
      ...pick('p50Ms', 'p99Ms', 'refused429'),
      virtualLearners: { label: 'Virtual learners' },
      learners: { label: 'Learners (after time compression)' },
      requestsPerSec: { label: 'Requests/s', unit: 'requests/s' },
      bookmarkReadP99Ms: { label: 'Bookmark read P99', unit: 'ms' },
      statementP99Ms: { label: 'Statement POST P99', unit: 'ms' },
      bookmarkWriteP99Ms: { label: 'Bookmark write P99', unit: 'ms' },
      completionP99Ms: { label: 'Completion POST P99', unit: 'ms' },
      completionCheckP99Ms: { label: 'Completion check P99', unit: 'ms' },
      completionChecks: { label: 'Completion checks' },
      completionChecksWrong: { label: 'Completion checks wrong' },
      failures: { label: 'Failures (errors and 5xx)' }
    }
  },
  question: 'How many learners taking SCORM/cmi5 courses at once can the LRS serve before the 99th percentile of their requests passes 1.2 s, 2 s and 5 s (Ideal, Acceptable, Frustrating, Unacceptable in the SCORM Engine study)? Each learner reads its bookmark, sends a statement and writes its bookmark every 20 s, then completes and checks completion by registration. The store holds 100,000 statements before the learners start (1,000,000 in --full).',
  remote: true,
  async run ({ profile, target, progress }) {
    const settings = PROFILES.sessions[profile]
    const result = await learnerSessions({
      ...settings,
      prefilled: target.url ? 0 : settings.prefilled,
      target,
      onPrefill: (n) => progress(`  store filled with ${n} statements`),
      onStep: (l) => progress(`  ${l.learners} learners (${l.virtualLearners} virtual): ${l.requestsPerSec} requests/s, P50 ${l.p50Ms} ms, P99 ${l.p99Ms} ms, completion check P99 ${l.completionCheckP99Ms} ms (${l.completionChecksWrong} of ${l.completionChecks} wrong), 429 ${l.refused429}, failures ${l.failures}`)
    })
    // The thresholds the data reaches, and the next one above it: an axis
    // to 5 s would flatten a run whose P99 stays under 300 ms.
    const highest = Math.max(0, ...result.levels.map((l) => l.p99Ms || 0))
    const next = result.thresholds.findIndex((t) => t.ms > highest)
    const rules = result.thresholds.slice(0, next === -1 ? undefined : next + 1).map((t) => ({ ms: t.ms, name: t.name }))
    return {
      settings: { ...settings, prefilled: target.url ? 'the deployment as it is' : settings.prefilled, timeCompression: `${result.compression}x: a virtual learner every ${settings.intervalMs / 1000} s stands for ${result.compression} learners every 20 s` },
      figures: {
        learnersWhenP99: result.crossing,
        completionChecks: result.levels.reduce((n, l) => n + l.completionChecks, 0),
        completionChecksWrong: result.levels.reduce((n, l) => n + l.completionChecksWrong, 0)
      },
      table: result.levels,
      plots: [{
        name: 'p99',
        title: 'P99 of learners\' requests against concurrent learners',
        spec: {
          layer: [
            { data: { values: result.levels }, mark: { type: 'line', point: true }, encoding: { x: { field: 'learners', type: 'quantitative', title: 'Concurrent learners (after time compression)' }, y: { field: 'p99Ms', type: 'quantitative', title: 'P99 of learners\' requests (ms)' } } },
            { data: { values: rules }, mark: { type: 'rule', strokeDash: [4, 4], color: 'gray' }, encoding: { y: { field: 'ms', type: 'quantitative' } } },
            { data: { values: rules }, mark: { type: 'text', align: 'left', dx: 4, dy: -6, color: 'gray' }, encoding: { y: { field: 'ms', type: 'quantitative' }, x: { value: 0 }, text: { field: 'name' } } }
          ]
        }
      }]
    }
  }
}

const stores = {
  title: 'Stores',
  labels: {
    figures: {
      oneStoreStatementsPerSec: { label: 'One store', unit: 'statements/s', better: 'higher' },
      spreadStatementsPerSec: { label: 'Spread over the stores', unit: 'statements/s', better: 'higher' },
      oneStoreManyKeysStatementsPerSec: { label: 'One store, a key per learner group', unit: 'statements/s', better: 'higher' },
      oneOwnStoreStatementsPerSec: { label: 'One store made beside the default one', unit: 'statements/s', better: 'higher' },
      spreadVsOne: { label: 'Spread / one store', unit: '×', better: 'higher' },
      manyKeysVsOne: { label: 'One store with many keys / one store', unit: '×', better: 'higher' },
      ownStoreVsOne: { label: 'One made store / one store (the default)', unit: '×', better: 'higher' },
      spreadVsOwnStore: { label: 'Spread / one made store', unit: '×', better: 'higher' },
      oneStoreWriterCpuMicrosPerStatement: { label: 'One store, SQLite writer CPU per statement', unit: 'µs', better: 'lower' },
      ownStoreWriterCpuMicrosPerStatement: { label: 'One made store, SQLite writer CPU per statement', unit: 'µs', better: 'lower' },
      spreadWriterCpuMicrosPerStatement: { label: 'Spread, SQLite writer CPU per statement', unit: 'µs', better: 'lower' },
      oneStoreWorkersCpuMicrosPerStatement: { label: 'One store, workers\' CPU per statement', unit: 'µs', better: 'lower' },
      ownStoreWorkersCpuMicrosPerStatement: { label: 'One made store, workers\' CPU per statement', unit: 'µs', better: 'lower' },
      spreadWorkersCpuMicrosPerStatement: { label: 'Spread, workers\' CPU per statement', unit: 'µs', better: 'lower' },
      oneStoreP99Ms: { label: 'One store, P99', unit: 'ms', better: 'lower' },
      spreadP99Ms: { label: 'Spread, P99', unit: 'ms', better: 'lower' }
    },
    columns: {
      ...pick('statementsPerSec', 'p50Ms', 'p99Ms', 'errors'),
      kind: { label: 'Statements go to' },
      pair: { label: 'Pair' },
      non2xx: { label: 'Non-2xx responses', unit: 'responses' },
      non2xxStatuses: { label: 'Which non-2xx' },
      sent: { label: 'Statements sent', unit: 'statements' },
      workersCpuMicrosPerStatement: { label: 'Workers\' CPU per statement', unit: 'µs' },
      writerCpuMicrosPerStatement: { label: 'SQLite writer CPU per statement', unit: 'µs' }
    }
  },
  repeatsInside: true, // the phases alternate, `pairs` times
  fullOnly: true,
  question: 'With statements spread over many stores (each learner in one store, each request with its store\'s credential), does the LRS ingest as fast as into one store (the tenancy question: issue 36 asks for at least 90 % of the single-store rate at batch 20)? Each kind of phase has an LRS of its own (the single store: an LRS with no other store), started together; the kinds alternate, each LRS growing by its own phases, so all see the same store sizes. A fourth kind, one store made beside the default one and taking every statement, tells what a store but the default one costs apart from the spread.',
  remote: false,
  async run ({ profile, target, progress }) {
    const settings = PROFILES.stores[profile]
    const result = await storesIngest({
      ...settings,
      engine: target.engine,
      onPhase: (p) => progress(`  ${p.kind} #${p.pair}: ${p.statementsPerSec} statements/s, P99 ${p.p99Ms} ms, non-2xx ${p.non2xx}${p.non2xxStatuses ? ` (${p.non2xxStatuses})` : ''}, CPU per statement: workers ${p.workersCpuMicrosPerStatement} µs, writer ${p.writerCpuMicrosPerStatement ?? '-'} µs`)
    })
    return {
      settings: { ...settings, engine: target.engine },
      figures: result.summary,
      table: result.phases,
      plots: [{
        name: 'phases',
        title: `Statements/s, one store against ${settings.stores} stores (and one made store), alternating`,
        spec: {
          data: { values: result.phases },
          mark: { type: 'line', point: true },
          encoding: { x: { field: 'pair', type: 'ordinal', title: 'Pair of phases' }, y: { field: 'statementsPerSec', type: 'quantitative', title: 'Statements/s' }, color: { field: 'kind', type: 'nominal', title: null } }
        }
      }]
    }
  }
}

const storesQueryScenario = {
  title: 'A small store beside a large one',
  labels: {
    figures: {
      smallStoreWorstP99MsBeside: { label: 'Small store beside the large one, worst shape\'s P99', unit: 'ms', better: 'lower' },
      smallStoreWorstP99MsAlone: { label: 'Small store alone, worst shape\'s P99', unit: 'ms', better: 'lower' },
      smallStoreWorstPooledP99MsBeside: { label: 'Small store beside the large one, worst shape\'s P99 over all its rounds\' queries', unit: 'ms', better: 'lower' },
      smallStoreWorstPooledP99MsAlone: { label: 'Small store alone, worst shape\'s P99 over all its rounds\' queries', unit: 'ms', better: 'lower' },
      smallStoreExportMsBeside: { label: 'Small store\'s export beside the large one', unit: 'ms', better: 'lower' },
      smallStoreExportMsAlone: { label: 'Small store\'s export alone', unit: 'ms', better: 'lower' }
    },
    columns: {
      ...pick('p50Ms', 'p99Ms'),
      pooledP99Ms: { label: 'P99 over the rounds\' queries', unit: 'ms' },
      worstRoundP99Ms: { label: 'Worst round\'s P99', unit: 'ms' },
      setting: { label: 'The small store is' },
      shape: { label: 'Query' },
      rowsPerQuery: { label: 'Statements a page' }
    }
  },
  question: 'Does a query in a small store (a tenant of 10,000 statements) answer as fast beside a large store as in an LRS of its own (issue 36: P99 <= 20 ms beside a store of 5 M)? Every GET /statements shape but the time ranges, each with values from the small store\'s own statements, timed to the answer\'s last byte on a kept-alive connection. Both LRSs run at once; each round times every shape in one, then the other (the order turning each round); P50 and P99 are medians over rounds, beside the P99 of all the rounds\' queries together and the worst round\'s.',
  remote: false,
  async run ({ profile, target, progress }) {
    // BENCH_STORES_QUERY_BIG: another size of the large store (the issue asks about 5 M);
    // BENCH_STORES_QUERY_SMALL_IN=default: the small store is the default one (stores.js)
    const settings = {
      ...PROFILES.storesQuery[profile],
      ...(process.env.BENCH_STORES_QUERY_BIG && { big: Number(process.env.BENCH_STORES_QUERY_BIG) }),
      ...(process.env.BENCH_STORES_QUERY_SMALL_IN && { smallIn: process.env.BENCH_STORES_QUERY_SMALL_IN })
    }
    if (settings.smallIn && !['own', 'default'].includes(settings.smallIn)) throw new Error('BENCH_STORES_QUERY_SMALL_IN: own or default')
    const result = await storesQuery({ ...settings, engine: target.engine, onProgress: progress })
    return {
      settings: { ...settings, engine: target.engine },
      figures: result.summary,
      table: result.rows,
      plots: [{
        name: 'p99',
        title: `P99 of each query shape in a store of ${settings.small.toLocaleString('en')} statements, beside a store of ${settings.big.toLocaleString('en')} and alone`,
        spec: {
          data: { values: result.rows },
          mark: 'bar',
          encoding: { y: { field: 'shape', type: 'nominal', title: null }, x: { field: 'p99Ms', type: 'quantitative', title: 'P99 (ms)' }, yOffset: { field: 'setting' }, color: { field: 'setting', type: 'nominal', title: null } }
        }
      }]
    }
  }
}

const storeDeleteScenario = {
  title: 'Deleting a large store under load',
  labels: {
    figures: {
      deletedStatements: { label: 'Statements in the deleted store', unit: 'statements' },
      statementsGoneSeconds: { label: 'Until its last statement was gone', unit: 's', better: 'lower' },
      purgedSeconds: { label: 'Until it was purged (documents, attachments, the wait for late writes)', unit: 's', better: 'lower' },
      purgedStatementsPerSec: { label: 'Statements purged per second', unit: 'statements/s', better: 'higher' },
      baselineP99Ms: { label: 'Other store\'s ingest P99, no purge (median of windows)', unit: 'ms', better: 'lower' },
      worstBaselineP99Ms: { label: 'Other store\'s ingest P99, no purge (worst window)', unit: 'ms', better: 'lower' },
      duringPurgeWorstP99Ms: { label: 'Other store\'s ingest P99 during the purge (worst window)', unit: 'ms', better: 'lower' },
      duringPurgeMedianP99Ms: { label: 'Other store\'s ingest P99 during the purge (median of windows)', unit: 'ms', better: 'lower' },
      baselineStatementsPerSec: { label: 'Other store\'s ingest, no purge', unit: 'statements/s' },
      duringPurgeStatementsPerSec: { label: 'Other store\'s ingest during the purge', unit: 'statements/s' },
      non2xx: { label: 'Non-2xx responses', unit: 'responses', better: 'lower' }
    },
    columns: {
      ...pick('statementsPerSec', 'p50Ms', 'p99Ms', 'errors'),
      when: { label: 'Window' },
      non2xx: { label: 'Non-2xx responses', unit: 'responses' },
      sent: { label: 'Statements sent', unit: 'statements' },
      workersCpuMicrosPerStatement: { label: 'Workers\' CPU per statement', unit: 'µs' },
      writerCpuMicrosPerStatement: { label: 'SQLite writer CPU per statement', unit: 'µs' }
    }
  },
  repeatsInside: true, // windows before, during and after
  fullOnly: true,
  question: 'How long does deleting a store of many statements take, and does it hold up another store\'s ingest meanwhile (issue 36: a store of 1 M within 60 s, the other stores\' P99 <= 2x their baseline)? The other store takes statements at a set rate, in windows before, during and after the purge.',
  remote: false,
  async run ({ profile, target, progress }) {
    const settings = PROFILES.storeDelete[profile]
    const result = await storeDelete({ ...settings, engine: target.engine, onProgress: progress })
    return {
      settings: { ...settings, engine: target.engine },
      figures: result.summary,
      table: result.windows,
      plots: [{
        name: 'p99',
        title: 'The other store\'s ingest P99, window by window',
        spec: {
          data: { values: result.windows.map((w, i) => ({ ...w, window: i + 1 })) },
          mark: { type: 'bar' },
          encoding: { x: { field: 'window', type: 'ordinal', title: 'Window' }, y: { field: 'p99Ms', type: 'quantitative', title: 'P99 (ms)' }, color: { field: 'when', type: 'nominal', title: null } }
        }
      }]
    }
  }
}

const engines = {
  title: 'Storage engines',
  labels: {
    // { sqlite: { statements, insertStatementsPerSec, ... } }: each engine at
    // its largest store ('SQLite: insert rate at the largest store')
    figures: {
      sqlite: { label: 'SQLite', none: 'not run' },
      ferretdb: { label: 'FerretDB', none: 'not run' },
      mongodb: { label: 'MongoDB', none: 'not run' },
      statements: { label: 'Largest store measured', unit: 'statements' },
      insertStatementsPerSec: { label: 'Insert rate at the largest store', unit: 'statements/s', better: 'higher' },
      bytesPerStatement: { label: 'Disk per statement at the largest store', unit: 'bytes', better: 'lower' },
      agentQueryP50Ms: { label: 'Agent query P50 at the largest store', unit: 'ms', better: 'lower' },
      agentQueryP99Ms: { label: 'Agent query P99 at the largest store', unit: 'ms', better: 'lower' }
    },
    columns: {
      ...pick('engine'),
      statements: { label: 'Statements stored' },
      insertStatementsPerSec: { label: 'Insert statements/s', unit: 'statements/s' },
      bytesPerStatement: { label: 'Disk per statement', unit: 'bytes' },
      agentQueryP50Ms: { label: 'Agent query P50', unit: 'ms' },
      agentQueryP99Ms: { label: 'Agent query P99', unit: 'ms' }
    }
  },
  fullOnly: true,
  question: 'Per engine, as the store grows: insert rate through the engine\'s own write path, bytes on disk per statement, and the latency of a stored-ordered query (an agent\'s 10 newest statements), the engines taking turns at each size (the RocksDB/InnoDB study).',
  remote: false,
  async run ({ profile, progress }) {
    const settings = PROFILES.engines[profile]
    const steps = await storageEngines({
      ...settings,
      onStep: (s) => progress(`  ${s.engine} at ${s.statements} statements: insert ${s.insertStatementsPerSec} st/s, ${s.bytesPerStatement ?? '-'} bytes/statement, agent query P50 ${s.agentQueryP50Ms} ms, P99 ${s.agentQueryP99Ms} ms`)
    })
    const c = engines.labels.columns
    const long = steps.flatMap((s) => [
      { engine: s.engine, statements: s.statements, measure: header(c.insertStatementsPerSec), value: s.insertStatementsPerSec },
      { engine: s.engine, statements: s.statements, measure: header(c.bytesPerStatement), value: s.bytesPerStatement },
      { engine: s.engine, statements: s.statements, measure: header(c.agentQueryP50Ms), value: s.agentQueryP50Ms }
    ])
    // Each engine at its largest store (the layout of earlier results.json
    // files, so that --compare matches them).
    const atLargest = (engine) => {
      const s = steps.filter((x) => x.engine === engine).pop()
      return s ? { statements: s.statements, insertStatementsPerSec: s.insertStatementsPerSec, bytesPerStatement: s.bytesPerStatement, agentQueryP50Ms: s.agentQueryP50Ms, agentQueryP99Ms: s.agentQueryP99Ms } : null
    }
    return {
      settings,
      figures: Object.fromEntries(settings.engines.map((e) => [e, atLargest(e)])),
      table: steps,
      plots: [{
        name: 'growth',
        title: 'Insert rate, bytes per statement and query latency as the store grows',
        spec: measuresChart(long, { field: 'statements', scale: { type: 'log' }, title: 'Statements stored (log scale)' }, { series: 'engine', logY: true })
      }]
    }
  }
}

// x: PM2 workers on a log-2 scale, ticks at the counts measured.
function workersAxis (workers) {
  return {
    field: 'workers',
    type: 'quantitative',
    title: 'PM2 workers (LRS_INSTANCES)',
    scale: workers.length > 1 ? { type: 'log', base: 2, domain: [Math.min(...workers), Math.max(...workers)], nice: false } : { zero: false },
    axis: { values: workers, format: 'd' }
  }
}

// One chart of `measure` against workers: a line per series (median), the
// repetitions as grey points; y fitted to the data.
function againstWorkers ({ title, subtitle, yTitle, lines, points, workers }) {
  const x = workersAxis(workers)
  const y = { field: 'value', type: 'quantitative', title: yTitle, scale: { zero: false } }
  return {
    title: { text: title, subtitle },
    layer: [
      { data: { values: points }, mark: { type: 'point', color: 'gray', opacity: 0.6, size: 25 }, encoding: { x, y } },
      {
        data: { values: lines },
        mark: { type: 'line', point: true },
        encoding: { x, y, color: { field: 'series', type: 'nominal', title: null, legend: { orient: 'bottom', labelLimit: 400 } }, strokeDash: { field: 'series', type: 'nominal', title: null, legend: { orient: 'bottom', labelLimit: 400 } } }
      }
    ]
  }
}

const cores = {
  title: 'Cores sweep',
  labels: {
    figures: {
      engineAloneStatementsPerSec: { label: 'Engine alone', unit: 'statements/s', better: 'higher' },
      engineAloneCpuMicrosPerStatement: { label: 'Engine alone, CPU per statement', unit: 'µs', better: 'lower' },
      writerAloneStatementsPerSec: { label: 'Writer process alone', unit: 'statements/s', better: 'higher' },
      writerAloneCpuMicrosPerStatement: { label: 'Writer process alone, its CPU per statement', unit: 'µs', better: 'lower' },
      largestCountVsWriter: { label: 'Largest worker count, share of the writer process alone', percent: true, better: 'higher' },
      statementsPerSecByWorkers: { label: 'Throughput at {key} PM2 worker(s)', unit: 'statements/s', better: 'higher' },
      largestCountVsEngine: { label: 'Largest worker count, share of the engine alone', percent: true, better: 'higher' },
      cpuPerStatementLargestVs2Workers: { label: 'CPU per statement, largest count / 2 workers', unit: '×', better: 'lower' },
      cpuPerStatementAtFixedRate: { label: 'CPU per statement at {key} PM2 worker(s), the same statements/s offered to each count (BENCH_RATE)', unit: 'µs', better: 'lower' },
      statementsPerSecAtMatchedLoad: { label: 'Throughput at {key} PM2 worker(s) with the largest count\'s connections per worker (BENCH_MATCHED)', unit: 'statements/s', better: 'higher' },
      overloadShareOfPeak: { label: 'Accepted throughput at {key} connections, share of the largest count at 64', percent: true, better: 'higher' },
      overloadP99Ms: { label: 'P99 at {key} connections', unit: 'ms', better: 'lower' },
      fiveXX: { label: '5xx responses, all steps', unit: 'responses', better: 'lower' },
      lrsProcesses: { label: 'LRS processes at the largest count' }
    },
    columns: {
      ...pick('connections', 'p50Ms', 'p99Ms', 'refused429', 'fiveXX', 'errors', 'generatorCpuShare'),
      part: { label: 'Part' },
      workers: { label: 'PM2 workers' },
      apps: { label: 'PM2 processes' },
      offered: { label: 'Offered (fixed rate)', unit: 'statements/s' },
      statementsPerSec: { label: 'Statements/s (median)', unit: 'statements/s' },
      perRepetition: { label: 'Statements/s in each round' },
      share: { label: 'Share', percent: true },
      cpuMicrosPerStatement: { label: 'CPU per statement', unit: 'µs' },
      lrsCores: { label: 'LRS CPU', unit: 'cores' },
      writerCores: { label: 'Writer CPU', unit: 'cores' },
      peakRssMiB: { label: 'Peak workers RSS', unit: 'MiB' },
      restarts: { label: 'Restarts' }
    }
  },
  repeatsInside: true, // the worker counts alternate, `repeat` rounds
  fullOnly: true,
  question: `Ingest (batches of 20 statements, 64 connections, closed loop) with the LRS at 1, 2, 4, 8 ... PM2 workers, each on a fresh store, against the engine alone in the same run (the same batches through storage.statements.storeBatch in-process): does throughput rise with the workers up to the engine's own rate, what does a statement cost in CPU across every LRS process (PM2 apps ${LRS_APPS.join(', ')}), and at the largest count, 4x and 16x the connections: does accepted throughput hold, with 429s only and bounded memory? Figures are medians of rounds that alternate the worker counts; in the table, share is of the engine alone for the worker rows and of the largest count's 64-connection rate for the overload rows, and 429s, 5xx and errors are totals over the rounds.`,
  remote: false,
  async run ({ profile, target, progress, repeat }) {
    const settings = { ...PROFILES.cores[profile], ...settingsFromEnv(), ...(repeat && { repeat }) }
    const steps = await coresSweep({
      ...settings,
      engine: target.engine,
      onStep: (s) => progress(`  #${s.repetition} ${s.part === 'engine alone' ? 'engine alone' : s.part === 'writer alone' ? `writer process alone (${s.workers} clients)` : `${s.workers} worker${s.workers === 1 ? '' : 's'} (${s.apps})`} x ${s.connections} connections: ${s.statementsPerSec} st/s` +
        (s.part === 'engine alone' ? `, ${s.cpuMicrosPerStatement} us CPU/st` : s.part === 'writer alone' ? `, writer ${s.cpuMicrosPerStatement} us CPU/st (${s.writerCores} cores), ${s.statementsPerTransaction} statements per transaction` : `, P50 ${s.p50Ms} ms, P99 ${s.p99Ms} ms, LRS CPU ${s.cpuMicrosPerStatement ?? '-'} us/st (${s.lrsCores} cores${s.writerCores === null ? '' : `, writer ${s.writerCores}`}), 429 ${s.refused429}, 5xx ${s.fiveXX}, RSS ${s.rssMiB ?? '-'} MiB`))
    })
    const summary = summarize(steps)
    const checks = checkCriteria(summary)
    for (const c of checks) progress(`  check: ${c.criterion}: ${c.verdict.toUpperCase()} (${c.detail})`)
    const { sweep, fixedRate, matched, overload: over, engineRate, engine, writer, writerRate } = summary
    const workers = sweep.map((r) => r.workers)
    const top = sweep[sweep.length - 1]
    const at2 = sweep.find((r) => r.workers === 2)
    const sweepSteps = steps.filter((s) => s.part === 'workers')
    return {
      settings: { ...settings, engine: target.engine, batch: 20, lrsApps: LRS_APPS },
      figures: {
        engineAloneStatementsPerSec: engineRate,
        engineAloneCpuMicrosPerStatement: engine && engine.cpuMicrosPerStatement,
        writerAloneStatementsPerSec: writerRate,
        writerAloneCpuMicrosPerStatement: writer && writer.cpuMicrosPerStatement,
        largestCountVsWriter: top && writerRate ? Math.round((top.statementsPerSec / writerRate) * 100) / 100 : null,
        statementsPerSecByWorkers: Object.fromEntries(sweep.map((r) => [r.workers, r.statementsPerSec])),
        largestCountVsEngine: top ? top.share : null,
        cpuPerStatementLargestVs2Workers: top && at2 && at2.cpuMicrosPerStatement ? Math.round((top.cpuMicrosPerStatement / at2.cpuMicrosPerStatement) * 100) / 100 : null,
        ...(fixedRate.length && { cpuPerStatementAtFixedRate: Object.fromEntries(fixedRate.map((r) => [r.workers, r.cpuMicrosPerStatement])) }),
        ...(matched.length && { statementsPerSecAtMatchedLoad: Object.fromEntries(matched.map((r) => [r.workers, r.statementsPerSec])) }),
        overloadShareOfPeak: Object.fromEntries(over.map((r) => [r.connections, r.share])),
        overloadP99Ms: Object.fromEntries(over.map((r) => [r.connections, r.p99Ms])),
        fiveXX: [...sweep, ...over].reduce((n, r) => n + r.fiveXX, 0),
        lrsProcesses: top ? top.apps : null
      },
      checks,
      table: [engine, writer, ...sweep, ...matched, ...fixedRate, ...over].filter(Boolean),
      plots: [{
        name: 'throughput',
        title: 'Statements/s against PM2 workers',
        spec: againstWorkers({
          title: 'Ingest statements/s against PM2 workers',
          subtitle: `batches of 20, ${settings.connections} connections; median of ${settings.repeat} rounds (grey: each round); dashed: the engine alone and the writer process alone`,
          yTitle: 'Statements/s',
          workers,
          lines: sweep.flatMap((r) => [{ series: 'LRS (POST /statements)', workers: r.workers, value: r.statementsPerSec }, ...(engineRate ? [{ series: 'engine alone (storeBatch in-process)', workers: r.workers, value: engineRate }] : []), ...(writerRate ? [{ series: 'writer process alone (bench/writer-feed.js)', workers: r.workers, value: writerRate }] : [])]),
          points: sweepSteps.map((s) => ({ workers: s.workers, value: s.statementsPerSec }))
        })
      }, {
        name: 'cpu',
        title: 'CPU per statement against PM2 workers',
        spec: againstWorkers({
          title: 'CPU per statement against PM2 workers',
          subtitle: `all LRS processes (PM2 apps ${LRS_APPS.join(', ')}); median of ${settings.repeat} rounds (grey: each round); dashed: the engine's own write path`,
          yTitle: 'CPU per statement (µs)',
          workers,
          lines: sweep.flatMap((r) => [{ series: 'LRS processes', workers: r.workers, value: r.cpuMicrosPerStatement }, ...(engine && engine.cpuMicrosPerStatement ? [{ series: 'engine alone (write path)', workers: r.workers, value: engine.cpuMicrosPerStatement }] : [])]),
          points: sweepSteps.filter((s) => s.cpuMicrosPerStatement !== null).map((s) => ({ workers: s.workers, value: s.cpuMicrosPerStatement }))
        })
      }]
    }
  }
}

// The query shape with the highest P99 of a step, in words.
function slowest (queries) {
  const [name, q] = Object.entries(queries).reduce((a, b) => (b[1].p99Ms > a[1].p99Ms ? b : a))
  return `slowest: ${name}, P50 ${q.p50Ms} ms`
}

const scale = {
  title: 'Scale',
  labels: {
    figures: {
      firstStepStatementsPerSec: { label: 'POST /statements, first step', unit: 'statements/s', better: 'higher' },
      lastStepStatementsPerSec: { label: 'POST /statements, last step', unit: 'statements/s', better: 'higher' },
      lastVsFirst: { label: 'Last step / first step', percent: true, better: 'higher' },
      highestWriteP99Ms: { label: 'Highest write P99, steps through POST', unit: 'ms', better: 'lower' },
      bytesPerStatement: { label: 'Disk per statement at the end', unit: 'bytes', better: 'lower' },
      writtenBytesPerStatement: { label: 'Bytes written per statement, {key}', unit: 'bytes', better: 'lower' },
      queryP99MsMax: { label: 'Slowest query shape P99 at the end', unit: 'ms', better: 'lower' },
      queryP50Growth: { label: 'Largest query P50 growth, first step to last, pages of 2', unit: '×', better: 'lower' },
      queryP50GrowthPages100: { label: 'Largest query P50 growth, first step to last, pages of 100', unit: '×', better: 'lower' },
      importStatementsPerSec: { label: 'npm run import, median of its steps', unit: 'statements/s', better: 'higher' },
      importPeakRssMiB: { label: 'npm run import, highest peak memory of a step', unit: 'MiB', better: 'lower' }
    },
    columns: {
      ...pick('statementsPerSec'),
      statements: { label: 'Statements stored' },
      fill: { label: 'Filled by' },
      writeP50Ms: { label: 'Write P50', unit: 'ms' },
      writeP99Ms: { label: 'Write P99', unit: 'ms' },
      non2xx: { label: 'Non-2xx writes', unit: 'responses' },
      importPeakRssMiB: { label: 'Import peak memory', unit: 'MiB' },
      bytesPerStatement: { label: 'Disk per statement', unit: 'bytes' },
      writtenBytesPerStatement: { label: 'Written per statement', unit: 'bytes' },
      queryP50MsMax: { label: 'Slowest query P50', unit: 'ms' },
      queryP99MsMax: { label: 'Slowest query P99', unit: 'ms' }
    }
  },
  repeatsInside: true, // one fill; its steps are the repetitions
  onlyWhenNamed: true,
  question: 'Does ingest stay flat as the default engine\'s store grows step by step (a million statements a step in --full, to ten million), in statements/s and write P99 through POST /statements (batches of 20, 10 connections), with under 1,000 bytes on disk per statement, bounded bytes written per statement, and every GET /statements shape fast under 1,000 statements/s of ingest (the Veracity study)?',
  remote: false,
  async run ({ profile, target, progress }) {
    const env = process.env
    const settings = {
      ...PROFILES.scale[profile],
      ...(env.BENCH_SCALE_STATEMENTS && { statements: Number(env.BENCH_SCALE_STATEMENTS) }),
      ...(env.BENCH_SCALE_STEP && { step: Number(env.BENCH_SCALE_STEP) }),
      ...(env.BENCH_SCALE_FILL && { fill: env.BENCH_SCALE_FILL }),
      keepStore: Boolean(env.BENCH_SCALE_KEEP_STORE)
    }
    if (target.engine !== 'sqlite') throw new Error('the scale scenario measures the default engine (sqlite)')
    const steps = await scaleFill({
      ...settings,
      onStep: (s) => progress(`  ${s.statements} statements (${s.fill}): ${s.statementsPerSec} st/s` +
        (s.writeP99Ms === null ? `, import peak ${s.importPeakRssMiB} MiB` : `, write P50 ${s.writeP50Ms} ms, P99 ${s.writeP99Ms} ms`) +
        `, ${s.bytesPerStatement} B/st on disk, ${s.writtenBytesPerStatement} B/st written, queries P50 <= ${s.queryP50MsMax} ms, P99 <= ${s.queryP99MsMax} ms (${slowest(s.queries)})`)
    })
    if (steps.keptStore) progress(`  the store is kept in ${steps.keptStore} (BENCH_SCALE_KEEP_STORE): remove it when done`)
    const checks = scaleChecks(steps)
    for (const c of checks) progress(`  check: ${c.criterion}: ${c.verdict.toUpperCase()} (${c.detail})`)
    const [first, last] = [steps[0], steps[steps.length - 1]]
    const imports = steps.filter((s) => s.fill === 'npm run import')
    const lrsSteps = steps.filter((s) => s.fill === 'POST /statements')
    const millions = (n) => `${(n / 1e6).toFixed(1)} M`
    const at1M = steps.find((s) => s.statements >= 1e6) || first
    const c = scale.labels.columns
    const x = { field: 'statements', title: 'Statements stored' }
    const long = steps.flatMap((s) => [
      { statements: s.statements, measure: header(c.statementsPerSec), series: s.fill, value: s.statementsPerSec },
      ...(s.writeP99Ms === null ? [] : [{ statements: s.statements, measure: header(c.writeP99Ms), series: s.fill, value: s.writeP99Ms }]),
      { statements: s.statements, measure: header(c.bytesPerStatement), series: 'store', value: s.bytesPerStatement },
      { statements: s.statements, measure: header(c.writtenBytesPerStatement), series: s.fill, value: s.writtenBytesPerStatement }
    ])
    const queries = steps.flatMap((s) => Object.entries(s.queries).map(([shape, q]) => ({ statements: s.statements, measure: 'P99 (ms)', series: shape, value: q.p99Ms })))
    return {
      settings: { ...settings, batch: 20, connections: 10, engine: 'sqlite' },
      figures: {
        firstStepStatementsPerSec: first.statementsPerSec,
        lastStepStatementsPerSec: last.statementsPerSec,
        lastVsFirst: Math.round((last.statementsPerSec / first.statementsPerSec) * 100) / 100,
        highestWriteP99Ms: Math.max(...lrsSteps.map((s) => s.writeP99Ms)),
        bytesPerStatement: last.bytesPerStatement,
        writtenBytesPerStatement: Object.fromEntries([first, at1M, last].map((s) => [millions(s.statements), s.writtenBytesPerStatement])),
        queryP99MsMax: last.queryP99MsMax,
        queryP50Growth: Math.round(largestGrowth(first.queriesLimit2, last.queriesLimit2).x * 100) / 100,
        queryP50GrowthPages100: Math.round(largestGrowth(first.queries, last.queries).x * 100) / 100,
        importStatementsPerSec: imports.length ? percentile(imports.map((s) => s.statementsPerSec), 50) : null,
        importPeakRssMiB: imports.length ? Math.max(...imports.map((s) => s.importPeakRssMiB)) : null
      },
      checks,
      table: steps.map(({ queries, queriesLimit2, ...s }) => s),
      // every shape's P50 and P99 at every step (results.json only)
      queries: steps.map((s) => ({ statements: s.statements, pages100: s.queries, pages2: s.queriesLimit2 })),
      plots: [{
        name: 'growth',
        title: 'Statements/s, write P99, disk and bytes written per statement against the store\'s size',
        spec: measuresChart(long, x, { series: 'series' })
      }, {
        name: 'queries',
        title: 'GET /statements P99 per query shape against the store\'s size, under 1,000 statements/s of ingest',
        spec: measuresChart(queries, x, { series: 'series' })
      }]
    }
  }
}

const scenarios = { ingest, soak: soakScenario, sessions, stores, 'stores-query': storesQueryScenario, 'store-delete': storeDeleteScenario, overload, 'bulk-load': bulk, engines, cores, scale }

module.exports = { scenarios, PROFILES }
