// Summarises the progress log of a `npm run bench -- --full` run (run.log here):
// median and range of each figure over the three repetitions.
//   node summarize-log.js run.log > first-four-scenarios.md
const lines = require('fs').readFileSync(process.argv[2], 'utf8').split('\n')
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)] }
const fmt = (a) => `${med(a).toLocaleString('en')} (${Math.min(...a).toLocaleString('en')}–${Math.max(...a).toLocaleString('en')})`
let scenario = null; let rep = 0
const ingest = {}; const soak = []; const sessions = []; const overload = {}
for (const l of lines) {
  let m
  if ((m = l.match(/\] (\w[\w-]*): repetition (\d) of/))) { scenario = m[1]; rep = Number(m[2]); if (scenario === 'soak') soak[rep - 1] = []; if (scenario === 'sessions') sessions[rep - 1] = []; continue }
  if (scenario === 'ingest' && (m = l.match(/(\w+) batch (\d+) x (\d+) connections: LRS (\d+) st\/s, engine alone (\d+) st\/s, P99 ([\d.]+) ms/))) {
    const k = `${m[1]} | ${m[2]} | ${m[3]}`; (ingest[k] ||= { lrs: [], alone: [], p99: [] }); ingest[k].lrs.push(+m[4]); ingest[k].alone.push(+m[5]); ingest[k].p99.push(+m[6])
  }
  if (scenario === 'soak' && (m = l.match(/\]\s+(\d+) s: (\d+) st\/s, P99 ([\d.]+) ms/))) soak[rep - 1].push({ t: +m[1], rate: +m[2], p99: +m[3] })
  if (scenario === 'sessions' && (m = l.match(/(\d+) learners \(\d+ virtual\): (\d+) requests\/s, P50 ([\d.]+) ms, P99 ([\d.]+) ms, completion check P99 ([\d.]+) ms \((\d+) of (\d+) wrong\), 429 (\d+), failures (\d+)/))) sessions[rep - 1].push({ learners: +m[1], rps: +m[2], p99: +m[4], check: +m[5], wrong: +m[6], checks: +m[7], r429: +m[8], failures: +m[9] })
  if (scenario === 'overload' && (m = l.match(/(\d+) connections: (\d+) st\/s accepted, 429 (\d+) %, P99 ([\d.]+) ms, 5xx (\d+), RSS (\d+) MiB/))) {
    const k = +m[1]; (overload[k] ||= { acc: [], r429: [], p99: [], x5: [], rss: [] }); overload[k].acc.push(+m[2]); overload[k].r429.push(+m[3]); overload[k].p99.push(+m[4]); overload[k].x5.push(+m[5]); overload[k].rss.push(+m[6])
  }
}
const out = []
out.push('## Ingest sweep (3 repetitions; median (min–max))', '', '| engine | batch | connections | LRS statements/s | engine alone statements/s | P99 ms |', '|---|---|---|---|---|---|')
for (const [k, v] of Object.entries(ingest)) out.push(`| ${k} | ${fmt(v.lrs)} | ${fmt(v.alone)} | ${fmt(v.p99)} |`)
out.push('', '## Soak (3 repetitions of 5 minutes, 10 connections, batches of 20)', '', '| repetition | first 10 s | median of 10 s windows | last 10 s | P99 max (ms) |', '|---|---|---|---|---|')
soak.forEach((w, i) => out.push(`| ${i + 1} | ${w[0].rate.toLocaleString('en')} | ${med(w.map((x) => x.rate)).toLocaleString('en')} | ${w.at(-1).rate.toLocaleString('en')} | ${Math.max(...w.map((x) => x.p99))} |`))
out.push('', '## Learner sessions (store of 1,000,000 statements; time compressed 40×)', '', '| repetition | P99 > 1.2 s from (learners) | > 2 s from | > 5 s from | completion checks wrong | 429s | failures |', '|---|---|---|---|---|---|---|')
const firstOver = (steps, ms) => { const s = steps.find((x) => x.p99 > ms); return s ? s.learners.toLocaleString('en') : `not within ${steps.at(-1).learners.toLocaleString('en')}` }
sessions.forEach((s, i) => out.push(`| ${i + 1} | ${firstOver(s, 1200)} | ${firstOver(s, 2000)} | ${firstOver(s, 5000)} | ${s.reduce((n, x) => n + x.wrong, 0)} of ${s.reduce((n, x) => n + x.checks, 0).toLocaleString('en')} | ${s.reduce((n, x) => n + x.r429, 0)} | ${s.reduce((n, x) => n + x.failures, 0)} |`))
out.push('', '## Overload ramp (3 repetitions; closed loop, batches of 20; median (min–max))', '', '| connections | accepted statements/s | 429 % | P99 of accepted (ms) | 5xx | workers RSS MiB |', '|---|---|---|---|---|---|')
for (const [k, v] of Object.entries(overload)) out.push(`| ${k} | ${fmt(v.acc)} | ${fmt(v.r429)} | ${fmt(v.p99)} | ${v.x5.reduce((a, b) => a + b, 0)} | ${fmt(v.rss)} |`)
console.log(out.join('\n'))
